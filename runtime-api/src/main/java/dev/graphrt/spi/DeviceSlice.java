package dev.graphrt.spi;

import java.util.Objects;

/**
 * A window of an allocation: what the core hands a backend for every buffer argument, copy and info
 * buffer. {@code offset} is a multiple of {@link DeviceMemory#alignment()}.
 */
public record DeviceSlice(DeviceAllocation allocation, long offset, long length) {
    public DeviceSlice {
        Objects.requireNonNull(allocation, "allocation");
        if (offset < 0 || length < 0 || offset + length > allocation.byteSize()) {
            throw new IllegalArgumentException("slice [" + offset + ", +" + length + ") outside allocation of "
                    + allocation.byteSize() + " bytes");
        }
    }

    /** The first {@code bytes} of this slice. */
    public DeviceSlice prefix(long bytes) {
        return bytes == length ? this : new DeviceSlice(allocation, offset, bytes);
    }
}
