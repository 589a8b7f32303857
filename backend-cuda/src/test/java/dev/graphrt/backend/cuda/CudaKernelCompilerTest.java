package dev.graphrt.backend.cuda;

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
class CudaKernelCompilerTest {
    /** The backend's names and nothing else: binding no library, it works on a machine without one. */
    private static final DriverContext NAMES_ONLY = new DriverContext() {
        @Override
        public DriverNames names() {
            return CudaDriver.NAMES;
        }

        @Override
        public void makeCurrent() {
            throw new AssertionError("the compiler touched the device before checking the source");
        }
    };

    /** No device is touched before the source is checked, so no context is needed here. */
    private final DriverKernelCompiler compiler =
            new DriverKernelCompiler(NAMES_ONLY, new CudaKernelCompiler(null, null, false));

    @Test
    void it_compiles_CUDA_C_only() {
        assertThat(compiler.dialects()).containsExactly(Dialect.CUDA_C);
    }

    @Test
    void a_kernel_without_CUDA_C_text_fails_naming_the_kernel_and_the_dialect() {
        KernelSource wgslOnly = KernelSource.named("add_one").wgsl("@compute @workgroup_size(64) fn add_one() {}");

        assertThatThrownBy(() -> compiler.compile(wgslOnly))
                .isInstanceOf(KernelCompilationException.class)
                .hasMessageContaining("add_one")
                .hasMessageContaining("CUDA_C");
    }

    @Test
    void every_kit_kernel_text_declares_src_dst_and_info_so_its_launches_are_checked() {
        for (KernelSource kernel : List.of(KitKernels.ADD_ONE, KitKernels.MUL_TWO, KitKernels.PING_PONG)) {
            assertThat(CKernelSignature.parameterCount(
                            kernel.text(Dialect.CUDA_C).orElseThrow(), kernel.entryPoint()))
                    .as(kernel.entryPoint())
                    .hasValue(3);
        }
    }
}
