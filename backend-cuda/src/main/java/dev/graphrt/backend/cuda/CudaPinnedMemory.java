package dev.graphrt.backend.cuda;

import dev.graphrt.driver.PinnedHostMemory;
import java.lang.foreign.MemorySegment;

/**
 * The driver's page-locked host memory ({@code cuMemAllocHost_v2}/{@code cuMemFreeHost}). Allocation
 * exchanges the thread's capture mode to RELAXED so that it never invalidates a capture in progress (on
 * this thread or, in GLOBAL mode, on another).
 */
final class CudaPinnedMemory implements PinnedHostMemory {
    private final CudaContext context;

    CudaPinnedMemory(CudaContext context) {
        this.context = context;
    }

    @Override
    public MemorySegment allocate(long bytes) {
        context.makeCurrent();
        return CudaDriver.withRelaxedCaptureMode(() -> CudaDriver.memAllocHost(bytes));
    }

    @Override
    public void free(MemorySegment block) {
        context.makeCurrent();
        CudaDriver.memFreeHost(block);
    }
}
