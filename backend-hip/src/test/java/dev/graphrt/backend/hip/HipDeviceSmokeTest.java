package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Capability;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.conformance.DeviceSmokeKit;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The device smoke suite on a HIP device (an AMD GPU, or the NVIDIA H200 through the HIP-on-CUDA test library);
 * elsewhere every test is skipped with the probe's reason ("no HIP device (hipGetDeviceCount → 100)" with
 * Debian's libamdhip64-5).
 */
class HipDeviceSmokeTest extends DeviceSmokeKit {
    @Override
    protected BackendProvider provider() {
        return new HipBackendProvider();
    }

    @Test
    void dot_export_is_declared_exactly_when_the_runtime_can_dump_graphs() {
        assertThat(backend.capabilities().contains(Capability.DOT_EXPORT))
                .isEqualTo(HipRuntime.hasGraphDebugDotPrint());
        assertThat(backend.device().driver()).startsWith("HIP ");
    }

    @Test
    void a_kernel_given_only_as_CUDA_C_runs_as_HIP_C() {
        // another text than the kit's kernel, so another module: taken as its HIP C
        CompiledKernel fromCuda =
                backend.compiler().compile(KernelSource.named("add_one").cuda(ADD_ONE + "// CUDA C\n"));
        float[] start = ramp();
        stream.write(data, MemorySegment.ofArray(start));

        stream.launch(fromCuda, LaunchDims.linear(N, 256), bindings);

        assertThat(readData()).containsExactly(plus(start, 1));
    }
}
