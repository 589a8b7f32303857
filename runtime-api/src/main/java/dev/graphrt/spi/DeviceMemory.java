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
     * Copies {@code src} into {@code dst} synchronously and outside every stream, so the bytes are there
     * before any later work on any stream reads them. Used for info buffers; must be legal while a stream
     * of this backend records (CUDA: a synchronous copy from a non-blocking context is).
     */
    void upload(DeviceSlice dst, MemorySegment src);
}
