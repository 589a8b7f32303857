package dev.graphrt.driver;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;

/**
 * The native memory calls of one hardware backend ({@code cuMemAlloc_v2}, {@code hipMalloc}, ...), as
 * {@link DriverDeviceMemory} needs them. Each method is one native call (with the backend's own wrapping, such
 * as a capture-mode exchange); argument checks and the order of calls live in {@link DriverDeviceMemory}, so
 * the backends share them rather than copy them.
 */
public interface DeviceMemoryDriver {

    /** The backend's name, lower case ({@code cuda}, {@code hip}), for messages. */
    String backend();

    /** Makes the backend's context (device) current on the calling thread. */
    void makeCurrent();

    /** Allocates {@code bytes} (positive) of device memory and wraps it as this backend's allocation. */
    DeviceAllocation allocate(long bytes);

    /** Whether {@code allocation} came from {@link #allocate}. */
    boolean owns(DeviceAllocation allocation);

    /** Frees {@code allocation}, which {@link #owns} accepted. */
    void free(DeviceAllocation allocation);

    /** The device address of {@code slice}'s first byte; throws when the slice is not this backend's. */
    long address(DeviceSlice slice);

    /** Copies {@code bytes} from native host memory {@code src} to device {@code address}, synchronously. */
    void copyToDevice(long address, MemorySegment src, long bytes);
}
