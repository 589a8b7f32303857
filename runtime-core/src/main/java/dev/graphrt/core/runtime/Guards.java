package dev.graphrt.core.runtime;

import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Optional;

/**
 * Checked mode's guard bytes: every buffer's slice is asked for {@link #extra()} bytes more, the buffer uses the
 * middle, and both sides hold a canary written at allocation (a synchronous upload, legal while recording). A
 * stream that has waited for its work reads the guards back; a changed word means some work wrote outside the
 * buffer. The canary is then restored, so each overrun is reported once. A debugging aid: it costs two uploads
 * per allocation and two reads per checked buffer per synchronize.
 */
final class Guards {
    /** The canary word; an unlikely value for any kernel to write by accident. */
    static final int CANARY = 0x5AFEC0DE;

    private final DeviceMemory device;
    private final long side;

    Guards(DeviceMemory device, long alignment) {
        this.device = device;
        this.side = Math.max(256, alignment);
    }

    /** Bytes added to every checked allocation (a guard on each side). */
    long extra() {
        return 2 * side;
    }

    /** The buffer's own storage inside {@code slice}, after the canary was written on both sides. */
    DeviceSlice arm(PoolSlice slice, long bytes) {
        DeviceSlice all = slice.storage();
        DeviceSlice inner = new DeviceSlice(all.allocation(), all.offset() + side, bytes);
        fill(front(all));
        fill(back(all, bytes));
        return inner;
    }

    private DeviceSlice front(DeviceSlice all) {
        return new DeviceSlice(all.allocation(), all.offset(), side);
    }

    private DeviceSlice back(DeviceSlice all, long bytes) {
        long start = side + words(bytes) * 4;
        return new DeviceSlice(all.allocation(), all.offset() + start, all.length() - start);
    }

    private static long words(long bytes) {
        return (bytes + 3) / 4;
    }

    private void fill(DeviceSlice guard) {
        int[] canary = new int[(int) (guard.length() / 4)];
        Arrays.fill(canary, CANARY);
        device.upload(guard.prefix(canary.length * 4L), MemorySegment.ofArray(canary));
    }

    /**
     * Reads both guards of {@code buffer} through {@code stream} (which has waited for its work); a changed guard
     * is restored and reported, naming the first changed byte relative to the buffer's start.
     */
    Optional<BufferOverrunException> check(CoreBuffer buffer, BackendStream stream) {
        DeviceSlice all = buffer.slice().storage();
        DeviceSlice front = front(all);
        DeviceSlice back = back(all, buffer.byteSize());
        long frontBad = firstChanged(front, stream);
        long backBad = firstChanged(back, stream);
        if (frontBad < 0 && backBad < 0) {
            return Optional.empty();
        }
        if (frontBad >= 0) {
            fill(front);
        }
        if (backBad >= 0) {
            fill(back);
        }
        long offset = frontBad >= 0 ? frontBad - side : words(buffer.byteSize()) * 4 + backBad;
        return Optional.of(new BufferOverrunException(buffer.toString(), offset, buffer.lastLaunches()));
    }

    /** Byte offset of the first word in {@code guard} that is not the canary, or -1. */
    private static long firstChanged(DeviceSlice guard, BackendStream stream) {
        int[] seen = new int[(int) (guard.length() / 4)];
        stream.read(guard.prefix(seen.length * 4L), MemorySegment.ofArray(seen));
        for (int i = 0; i < seen.length; i++) {
            if (seen[i] != CANARY) {
                return i * 4L;
            }
        }
        return -1;
    }
}
