package dev.graphrt.backend.hip;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;

/**
 * One {@code hipMalloc} block: its device address and size. A slice's device address is the block's address
 * plus the slice's offset.
 *
 * @param pointer  the device address ({@code void*} in HIP)
 * @param byteSize bytes of the block
 */
record HipAllocation(long pointer, long byteSize) implements DeviceAllocation {
    HipAllocation {
        if (pointer == 0) {
            throw new IllegalArgumentException("pointer must not be NULL");
        }
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize must be positive, was " + byteSize);
        }
    }

    /** The device address of the first byte of {@code slice}; the slice must come from this backend. */
    static long address(DeviceSlice slice) {
        if (!(slice.allocation() instanceof HipAllocation allocation)) {
            throw new IllegalArgumentException("slice " + slice + " does not belong to the hip backend");
        }
        return allocation.pointer + slice.offset();
    }

    @Override
    public String toString() {
        return "HipAllocation[0x" + Long.toHexString(pointer) + ", " + byteSize + " bytes]";
    }
}
