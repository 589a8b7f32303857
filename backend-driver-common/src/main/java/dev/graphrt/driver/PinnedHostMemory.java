package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;

/**
 * Page-locked host memory as staging needs it: allocate and free. A hardware-graph backend implements it
 * with its driver ({@code cuMemAllocHost_v2}/{@code cuMemFreeHost}, {@code hipHostMalloc}/{@code hipHostFree});
 * tests with plain native memory.
 *
 * <p>Why an interface: {@link WriteStaging} and {@link CapturedHostCopies} are the same for every driver
 * whose asynchronous copies need a page-locked source; only these two calls differ.
 */
public interface PinnedHostMemory {
    /**
     * A block of exactly {@code bytes} whose address the device can copy from and to. An implementation
     * must not invalidate a capture in progress (e.g. it exchanges the thread's capture mode to RELAXED
     * around the driver call). Throws the backend's exception on failure.
     */
    MemorySegment allocate(long bytes);

    /** Returns a block obtained from {@link #allocate}. */
    void free(MemorySegment block);
}
