package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;

/**
 * The native memory calls of one hardware backend ({@code cuMemAlloc_v2}, {@code hipMalloc},
 * {@code cuMemAllocHost_v2}, ...), as {@link DriverDeviceMemory} needs them. Each method is one native call (with
 * the backend's own wrapping, such as a capture-mode exchange); argument checks, ownership, making the context
 * current and the order of calls live in {@link DriverDeviceMemory}, so the backends share them rather than copy
 * them.
 */
public interface DeviceMemoryDriver {

    /** Allocates {@code bytes} (positive) of device memory; returns its device address. */
    long allocate(long bytes);

    /** Frees the device block at {@code pointer}. */
    void free(long pointer);

    /** Copies {@code bytes} from native host memory {@code src} to device {@code address}, synchronously. */
    void copyToDevice(long address, MemorySegment src, long bytes);

    /**
     * A page-locked host block of exactly {@code bytes}; must not invalidate a capture in progress (exchange the
     * thread's capture mode to RELAXED around the call).
     */
    MemorySegment allocatePinned(long bytes);

    /** Frees a block from {@link #allocatePinned}. */
    void freePinned(MemorySegment block);
}
