package dev.graphrt.backend.cpu;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Device memory as off-heap segments, each allocation in its own shared arena so it can be freed alone. Like a
 * device, it has a ceiling ({@code cpu.memoryBytes}; by default {@code -XX:MaxDirectMemorySize} when set, else
 * the machine's physical memory): a request beyond what is left fails with {@link DeviceOutOfMemoryException}
 * instead of inviting the operating system's out-of-memory killer.
 */
final class CpuMemory implements DeviceMemory {
    static final long ALIGNMENT = 64;

    private final long ceiling;
    private final AtomicLong allocated = new AtomicLong();

    CpuMemory(long ceiling) {
        if (ceiling <= 0) {
            throw new IllegalArgumentException("cpu.memoryBytes must be positive, was " + ceiling);
        }
        this.ceiling = ceiling;
    }

    long ceiling() {
        return ceiling;
    }

    long allocatedBytes() {
        return allocated.get();
    }

    /** One allocation: the arena that owns it and its segment. */
    record CpuAllocation(Arena arena, MemorySegment segment) implements DeviceAllocation {
        @Override
        public long byteSize() {
            return segment.byteSize();
        }
    }

    @Override
    public long alignment() {
        return ALIGNMENT;
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        long after = allocated.addAndGet(bytes);
        if (after > ceiling) {
            allocated.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException(
                    "cpu backend: allocating " + bytes + " bytes would exceed its " + ceiling + "-byte ceiling ("
                            + (after - bytes) + " allocated; option cpu.memoryBytes)",
                    bytes);
        }
        Arena arena = Arena.ofShared();
        try {
            return new CpuAllocation(arena, arena.allocate(bytes, ALIGNMENT));
        } catch (OutOfMemoryError | IllegalArgumentException failure) {
            arena.close();
            allocated.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException(
                    "cpu backend could not allocate " + bytes + " bytes off-heap", bytes, failure);
        }
    }

    @Override
    public void free(DeviceAllocation allocation) {
        CpuAllocation cpu = (CpuAllocation) allocation;
        cpu.arena().close();
        allocated.addAndGet(-cpu.byteSize());
    }

    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        MemorySegment.copy(src, 0, segmentOf(dst), 0, src.byteSize());
    }

    static MemorySegment segmentOf(DeviceSlice slice) {
        return ((CpuAllocation) slice.allocation()).segment().asSlice(slice.offset(), slice.length());
    }
}
