package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
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
        return compiler(driverCount, new ArrayList<>(), false);
    }

    /**
     * As above, adding every text it compiles to {@code compiled}; it launches opted-in kernels as programmatic
     * dependents when {@code dependents}, with a prelude of its own.
     */
    private static DriverKernelCompiler compiler(int driverCount, List<String> compiled, boolean dependents) {
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
                compiled.add(text);
                return new byte[0];
            }

            @Override
            public boolean launchesAsDependent(KernelSource source) {
                return dependents && source.isProgrammaticDependent();
            }

            @Override
            public String dependentLaunchPrelude() {
                return dependents ? "// the device's prelude\n" : KernelToolchain.super.dependentLaunchPrelude();
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
    void an_opted_in_kernel_is_compiled_after_the_toolchains_prelude_and_numbered_from_its_own_first_line() {
        List<String> compiled = new ArrayList<>();
        DriverKernel kernel = (DriverKernel) compiler(2, compiled, true).compile(SRC_DST_INFO.programmaticDependent());

        assertThat(kernel.programmatic())
                .as("launched as a programmatic dependent")
                .isTrue();
        assertThat(compiled)
                .containsExactly("// the device's prelude\n#line 1\n"
                        + SRC_DST_INFO.text(Dialect.CUDA_C).orElseThrow());
    }

    @Test
    void a_kernel_that_did_not_opt_in_is_compiled_as_written_and_launched_plainly() {
        List<String> compiled = new ArrayList<>();
        DriverKernel kernel = (DriverKernel) compiler(2, compiled, true).compile(SRC_DST_INFO);

        assertThat(kernel.programmatic()).isFalse();
        assertThat(compiled).containsExactly(SRC_DST_INFO.text(Dialect.CUDA_C).orElseThrow());
    }

    @Test
    void where_the_driver_has_no_dependent_launch_an_opted_in_kernel_gets_functions_that_do_nothing() {
        List<String> compiled = new ArrayList<>();
        DriverKernel kernel = (DriverKernel) compiler(2, compiled, false).compile(SRC_DST_INFO.programmaticDependent());

        assertThat(kernel.programmatic()).as("an ordinary launch").isFalse();
        assertThat(compiled.getFirst())
                .startsWith(DependentLaunchPrelude.NO_OP)
                .contains("void graphrt_wait_for_predecessors() {}")
                .contains("void graphrt_launch_dependents() {}");
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
