package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Where a driver kernel's declared parameter count comes from: the driver's query, else the parsed signature. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DriverKernelCompilerTest {
    private static final KernelSource SRC_DST_INFO =
            KernelSource.named("add_one").cuda("""
            extern "C" __global__ void add_one(const unsigned int* src, unsigned int* dst, const unsigned int* info) {
            }
            """);

    /** A toolchain that compiles nothing and whose driver reports {@code driverCount} (-1: cannot tell). */
    private static DriverKernelCompiler compilerWhoseDriverReports(int driverCount) {
        DriverContext context = new DriverContext() {
            @Override
            public DriverNames names() {
                return new DriverNames("fake", "fake", HardwareGraphErrors.withNames(code -> "E" + code));
            }

            @Override
            public void makeCurrent() {}
        };
        KernelToolchain toolchain = new KernelToolchain() {
            @Override
            public Dialect dialect() {
                return Dialect.CUDA_C;
            }

            @Override
            public String missingSourceMessage(String entryPoint) {
                return "no CUDA C for " + entryPoint;
            }

            @Override
            public String imageKey() {
                return "fake 1.0";
            }

            @Override
            public byte[] compile(String entryPoint, String text) {
                return new byte[0];
            }

            @Override
            public MemorySegment loadModule(String entryPoint, byte[] image) {
                return MemorySegment.ofAddress(0x1000);
            }

            @Override
            public MemorySegment function(MemorySegment module, String entryPoint) {
                return MemorySegment.ofAddress(0x2000);
            }

            @Override
            public int parameterCount(String entryPoint, MemorySegment function) {
                return driverCount;
            }

            @Override
            public void unloadModule(MemorySegment module) {}
        };
        return new DriverKernelCompiler(context, toolchain);
    }

    @Test
    void the_count_the_driver_reports_is_the_one_declared() {
        assertThat(compilerWhoseDriverReports(3).compile(SRC_DST_INFO).declaredParameters())
                .hasValue(3);
    }

    @Test
    void a_driver_that_cannot_tell_falls_back_to_the_extern_c_global_signature_of_the_source() {
        DriverKernel kernel = (DriverKernel) compilerWhoseDriverReports(-1).compile(SRC_DST_INFO);

        assertThat(kernel.parameterCount()).isEqualTo(3);
        assertThat(kernel.declaredParameters()).hasValue(3);
    }

    @Test
    void a_kernel_neither_the_driver_nor_the_parser_can_read_is_undeclared() {
        KernelSource macro = KernelSource.named("k").cuda("""
                #define KERNEL(name) extern "C" __global__ void name(float* a)
                KERNEL(k) { }
                """);

        assertThat(compilerWhoseDriverReports(-1).compile(macro).declaredParameters())
                .isEmpty();
    }
}
