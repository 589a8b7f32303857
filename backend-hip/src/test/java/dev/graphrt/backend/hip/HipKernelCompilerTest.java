package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.driver.CKernelSignature;
import dev.graphrt.driver.DriverContext;
import dev.graphrt.driver.DriverKernelCompiler;
import dev.graphrt.driver.DriverNames;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipKernelCompilerTest {
    /** The backend's names and nothing else: binding no library, it works on a machine without one. */
    private static final DriverContext NAMES_ONLY = new DriverContext() {
        @Override
        public DriverNames names() {
            return HipRuntime.NAMES;
        }

        @Override
        public void makeCurrent() {
            throw new AssertionError("the compiler touched the device before checking the source");
        }
    };

    /** No device is touched before the source is checked, so no device is needed here. */
    private final DriverKernelCompiler compiler =
            new DriverKernelCompiler(NAMES_ONLY, new HipKernelCompiler(null, "no device"));

    @Test
    void it_compiles_HIP_C() {
        assertThat(compiler.dialects()).containsExactly(Dialect.HIP_C);
    }

    @Test
    void a_kernel_without_HIP_C_or_CUDA_C_text_fails_naming_the_kernel_and_both_dialects() {
        KernelSource wgslOnly = KernelSource.named("add_one").wgsl("@compute @workgroup_size(64) fn add_one() {}");

        assertThatThrownBy(() -> compiler.compile(wgslOnly))
                .isInstanceOf(KernelCompilationException.class)
                .hasMessageContaining("add_one")
                .hasMessageContaining("HIP_C")
                .hasMessageContaining("CUDA_C");
    }

    @Test
    void a_kernel_with_only_CUDA_C_text_offers_it_as_its_HIP_C() {
        KernelSource cudaOnly = KernelSource.named("k").cuda("extern \"C\" __global__ void k(float* x) {}");

        assertThat(cudaOnly.text(Dialect.HIP_C)).contains("extern \"C\" __global__ void k(float* x) {}");
    }

    @Test
    void hip_cannot_tell_a_functions_parameters_so_the_compiler_reads_the_signature_instead() {
        assertThat(new HipKernelCompiler(null, "no device")
                        .parameterCount("add_one", java.lang.foreign.MemorySegment.NULL))
                .isEqualTo(-1);
    }

    @Test
    void every_kit_kernel_text_declares_src_dst_and_info_so_its_launches_are_checked() {
        for (KernelSource kernel : List.of(KitKernels.ADD_ONE, KitKernels.MUL_TWO, KitKernels.PING_PONG)) {
            assertThat(CKernelSignature.parameterCount(
                            kernel.text(Dialect.HIP_C).orElseThrow(), kernel.entryPoint()))
                    .as(kernel.entryPoint())
                    .hasValue(3);
        }
    }
}
