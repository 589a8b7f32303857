package dev.graphrt.backend.cuda;

import dev.graphrt.driver.DeviceMemoryDriver;
import dev.graphrt.driver.DriverDeviceMemory;
import java.lang.foreign.MemorySegment;

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
enum CudaDeviceMemory implements DeviceMemoryDriver {
    INSTANCE;

    @Override
    public long allocate(long bytes) {
        return CudaDriver.memAlloc(bytes);
    }

    @Override
    public void free(long pointer) {
        CudaDriver.memFree(pointer);
    }

    @Override
    public void copyToDevice(long address, MemorySegment src, long bytes) {
        CudaDriver.memcpyHtoD(address, src, bytes);
    }

    @Override
    public MemorySegment allocatePinned(long bytes) {
        return CudaDriver.withRelaxedCaptureMode(() -> CudaDriver.memAllocHost(bytes));
    }

    @Override
    public void freePinned(MemorySegment block) {
        CudaDriver.memFreeHost(block);
    }
}
