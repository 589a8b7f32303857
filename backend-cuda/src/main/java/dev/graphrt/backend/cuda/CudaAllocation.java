package dev.graphrt.backend.cuda;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;

/**
 * One {@code cuMemAlloc_v2} block: its {@code CUdeviceptr} and size. A slice's device address is the
 * block's pointer plus the slice's offset.
 *
 * @param pointer  the {@code CUdeviceptr}
 * @param byteSize bytes of the block
 */
record CudaAllocation(long pointer, long byteSize) implements DeviceAllocation {
    CudaAllocation {
        if (pointer == 0) {
            throw new IllegalArgumentException("pointer must not be NULL");
        }
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize must be positive, was " + byteSize);
        }
    }

    /** The device address of the first byte of {@code slice}; the slice must come from this backend. */
    static long address(DeviceSlice slice) {
        if (!(slice.allocation() instanceof CudaAllocation allocation)) {
            throw new IllegalArgumentException("slice " + slice + " does not belong to the cuda backend");
        }
        return allocation.pointer + slice.offset();
    }

    @Override
    public String toString() {
        return "CudaAllocation[0x" + Long.toHexString(pointer) + ", " + byteSize + " bytes]";
    }
}
