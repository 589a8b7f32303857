package dev.graphrt.backend.cuda;

import dev.graphrt.driver.DriverBackendProvider;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendConfig;

/**
 * The CUDA backend's entry point for {@link java.util.ServiceLoader}: CUDA driver API through FFM
 * ({@code libcuda.so.1}), NVRTC for CUDA C kernels, hardware graphs by stream capture.
 *
 * <p>{@link #probe()} never throws and says exactly why CUDA cannot be used ("libcuda.so.1 not found (no
 * NVIDIA driver on this machine)", "cuInit failed: 100 CUDA_ERROR_NO_DEVICE", "no CUDA device
 * (cuDeviceGetCount = 0)"), or what it found ("NVIDIA H200, sm_90, driver 13.0"). Priority 100 ranks it
 * above the CPU backend. Construction does no native work.
 */
public final class CudaBackendProvider extends DriverBackendProvider {
    /** Priority of a usable CUDA device: above the pure-Java backend (0). */
    public static final int PRIORITY = 100;

    public CudaBackendProvider() {
        super("cuda", PRIORITY, CudaBackend::open);
    }

    @Override
    protected Availability check(BackendConfig config) {
        String failure = CudaLibrary.failure().orElse(null);
        if (failure != null) {
            return Availability.unavailable(failure);
        }
        int rc = CudaDriver.tryInit();
        if (rc != HardwareGraphErrors.SUCCESS) {
            return Availability.unavailable("cuInit failed: " + rc + " " + CudaDriver.resultName(rc));
        }
        int count = CudaDriver.deviceCount();
        if (count <= 0) {
            return Availability.unavailable("no CUDA device (cuDeviceGetCount = " + count + ")");
        }
        return devices(count, CudaDeviceDescription.query(0).summary());
    }
}
