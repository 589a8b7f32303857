package dev.graphrt.spi;

import java.lang.foreign.MemorySegment;

/**
 * Raw device storage. The core's pools are the only caller and never call {@link #allocate} or
 * {@link #free} while a stream of a hardware-graph backend records (the pools serve the window).
 */
public interface DeviceMemory {
    /** Alignment of every slice offset the core carves (e.g. 256 for CUDA and WebGPU storage bindings). */
    long alignment();

    /** A new block of at least {@code bytes}; {@code DeviceOutOfMemoryException} when the device is full. */
    DeviceAllocation allocate(long bytes);

    /** Returns a block to the device. The core guarantees no enqueued work still uses it. */
    void free(DeviceAllocation allocation);

    /**
     * Copies {@code src} into {@code dst} synchronously and outside every stream: the bytes are on the device
     * when this returns, before any later work on any stream reads them. Used for info buffers and checked mode's
     * canaries; must be legal while a stream of this backend records. CUDA: a synchronous copy from page-locked
     * memory is both; from pageable memory it may return before its DMA landed, unordered with non-blocking
     * streams, so a driver backend stages the bytes through pinned memory.
     */
    void upload(DeviceSlice dst, MemorySegment src);
}
