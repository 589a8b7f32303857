package dev.graphrt.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Pinned memory stood in for by native memory of a shared arena; counts what was allocated and freed. */
final class FakePinnedMemory implements PinnedHostMemory, AutoCloseable {
    private final Arena arena = Arena.ofShared();
    final List<MemorySegment> allocated = new ArrayList<>();
    final List<MemorySegment> freed = new ArrayList<>();

    @Override
    public MemorySegment allocate(long bytes) {
        MemorySegment block = arena.allocate(bytes, 64);
        allocated.add(block);
        return block;
    }

    @Override
    public void free(MemorySegment block) {
        freed.add(block);
    }

    long allocatedBytes() {
        return allocated.stream().mapToLong(MemorySegment::byteSize).sum();
    }

    @Override
    public void close() {
        arena.close();
    }
}
