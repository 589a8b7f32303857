package dev.graphrt.backend.cuda;

import dev.graphrt.driver.DeviceMemoryCalls;
import dev.graphrt.driver.DeviceMemoryDriver;
import dev.graphrt.driver.DriverDeviceMemory;

/**
 * Raw device storage and pinned host memory through {@code cuMemAlloc_v2}/{@code cuMemFree_v2} and
 * {@code cuMemAllocHost_v2}/{@code cuMemFreeHost}: the driver calls behind the shared {@link DriverDeviceMemory},
 * which does the checks and makes the backend's context current first.
 *
 * <p>An upload is a synchronous {@code cuMemcpyHtoD_v2}: every stream of this backend is non-blocking, so the
 * copy does not synchronise with them and is legal while one of them captures (H200 probe 10), which is exactly
 * what the core needs for info buffers. A pinned allocation exchanges the thread's capture mode to RELAXED so
 * that it never invalidates a capture in progress.
 */
final class CudaDeviceMemory {
    private CudaDeviceMemory() {
    }

    /** The driver's memory calls, for {@link DriverDeviceMemory}. */
    static final DeviceMemoryDriver CALLS = new DeviceMemoryCalls(CudaDriver::memAlloc, CudaDriver::memFree,
            CudaDriver::memcpyHtoD, bytes -> CudaDriver.withRelaxedCaptureMode(() -> CudaDriver.memAllocHost(bytes)),
            CudaDriver::memFreeHost);
}
