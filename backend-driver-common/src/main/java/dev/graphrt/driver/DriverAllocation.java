package dev.graphrt.driver;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.util.Objects;

/**
 * One device block of a driver backend ({@code cuMemAlloc_v2}, {@code hipMalloc}): its device address, size
 * and the backend that owns it. A slice's device address is the block's address plus the slice's offset.
 *
 * <p>Why the backend's name: a slice of another backend (or another kind of allocation) must be refused before
 * its address reaches a driver, and both driver backends refuse it the same way.
 *
 * @param backend  the owning backend's name ({@code cuda}, {@code hip})
 * @param owner    the backend instance (its device's context) that allocated it: a copy tells a peer's block by it
 * @param pointer  the device address
 * @param byteSize bytes of the block
 */
public record DriverAllocation(String backend, DriverContext owner, long pointer, long byteSize)
        implements DeviceAllocation {
    public DriverAllocation {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(owner, "owner");
        if (pointer == 0) {
            throw new IllegalArgumentException("pointer must not be NULL");
        }
        if (byteSize <= 0) {
            throw new IllegalArgumentException("byteSize must be positive, was " + byteSize);
        }
    }

    /** The device address of the first byte of {@code slice}, which must be a block of {@code backend}. */
    public static long address(DeviceSlice slice, String backend) {
        if (!(slice.allocation() instanceof DriverAllocation allocation) || !allocation.backend.equals(backend)) {
            throw new IllegalArgumentException("slice " + slice + " does not belong to the " + backend + " backend");
        }
        return allocation.pointer + slice.offset();
    }

    @Override
    public String toString() {
        return "DriverAllocation[" + backend + ", 0x" + Long.toHexString(pointer) + ", " + byteSize + " bytes]";
    }
}
