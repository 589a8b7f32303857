package dev.graphrt.backend.cpu;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Device memory as off-heap segments, each allocation in its own shared arena so it can be freed alone. */
final class CpuMemory implements DeviceMemory {
    static final long ALIGNMENT = 64;

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
        Arena arena = Arena.ofShared();
        try {
            return new CpuAllocation(arena, arena.allocate(bytes, ALIGNMENT));
        } catch (OutOfMemoryError | IllegalArgumentException failure) {
            arena.close();
            throw new DeviceOutOfMemoryException("cpu backend could not allocate " + bytes + " bytes off-heap",
                    bytes, failure);
        }
    }

    @Override
    public void free(DeviceAllocation allocation) {
        ((CpuAllocation) allocation).arena().close();
    }

    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        MemorySegment.copy(src, 0, segmentOf(dst), 0, src.byteSize());
    }

    static MemorySegment segmentOf(DeviceSlice slice) {
        return ((CpuAllocation) slice.allocation()).segment().asSlice(slice.offset(), slice.length());
    }
}
