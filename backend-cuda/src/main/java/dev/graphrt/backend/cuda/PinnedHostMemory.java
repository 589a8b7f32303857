package dev.graphrt.backend.cuda;

import java.lang.foreign.MemorySegment;

/**
 * Page-locked host memory as staging needs it: allocate and free. The cuda backend implements it with
 * {@code cuMemAllocHost_v2}/{@code cuMemFreeHost}; tests with plain native memory.
 */
interface PinnedHostMemory {
    /** A block of exactly {@code bytes} whose address the device can copy from and to. */
    MemorySegment allocate(long bytes);

    void free(MemorySegment block);

    /**
     * The driver's pinned memory. Allocation exchanges the thread's capture mode to RELAXED so that it
     * never invalidates a capture in progress (on this thread or, in GLOBAL mode, on another).
     */
    static PinnedHostMemory driver(CudaContext context) {
        return new PinnedHostMemory() {
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
        };
    }
}
