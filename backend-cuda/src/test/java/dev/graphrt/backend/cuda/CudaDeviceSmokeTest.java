package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Capability;
import dev.graphrt.conformance.DeviceSmokeKit;
import dev.graphrt.spi.BackendProvider;
import org.junit.jupiter.api.Test;

/**
 * The device smoke suite on a CUDA device; without one every test is skipped with the probe's reason. Runs
 * through the real FFM layer against backend-cuda/src/test/native/fake_cuda.c too (docs/backend-cuda.md).
 */
class CudaDeviceSmokeTest extends DeviceSmokeKit {
    @Override
    protected BackendProvider provider() {
        return new CudaBackendProvider();
    }

    @Test
    void the_cuda_backend_always_exports_the_driver_dot() {
        assertThat(backend.capabilities()).contains(Capability.DOT_EXPORT);
        assertThat(backend.device().driver()).startsWith("CUDA driver ");
    }
}
