package dev.graphrt.spi;

import java.util.Objects;

/**
 * A kernel touched memory outside one of its buffers, and the backend stopped it (a Java kernel's bounds-checked
 * segment). Reported like any failure of enqueued work, at the next host synchronisation; the core names the user's
 * buffer it belongs to ({@code BufferOverrunException} in checked mode), which the backend cannot.
 */
public final class OutOfBoundsAccess extends RuntimeException {
    private final transient DeviceSlice slice;
    private final long offset;
    private final String kernel;
    private final int argument;

    /**
     * @param slice    the buffer's slice as the launch bound it
     * @param offset   the first byte touched outside it, relative to its start (negative: before it)
     * @param kernel   the kernel's entry point
     * @param argument which of the launch's buffers it is
     * @param cause    what the backend caught
     */
    public OutOfBoundsAccess(DeviceSlice slice, long offset, String kernel, int argument, Throwable cause) {
        super(
                "kernel '" + kernel + "' touched byte " + offset + " of its buffer argument " + argument + " ("
                        + slice.length() + " bytes)",
                cause);
        this.slice = Objects.requireNonNull(slice, "slice");
        this.offset = offset;
        this.kernel = Objects.requireNonNull(kernel, "kernel");
        this.argument = argument;
    }

    public DeviceSlice slice() {
        return slice;
    }

    public long offset() {
        return offset;
    }

    public String kernel() {
        return kernel;
    }

    public int argument() {
        return argument;
    }
}
