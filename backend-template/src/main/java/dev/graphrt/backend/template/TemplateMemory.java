package dev.graphrt.backend.template;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Raw storage only: blocks of off-heap memory, up to a fixed size, as a device has. The core's pools carve the
 * blocks into buffers and decide when to free them; this class never keeps a block for reuse.
 *
 * <p>Each block has its own shared arena: the core frees blocks one at a time, from whichever thread flushes its
 * releases. A request beyond the size left fails with {@link DeviceOutOfMemoryException}, which the core answers by
 * trimming its pools and trying once more.
 */
final class TemplateMemory implements DeviceMemory {
    /** Slice offsets are multiples of this, so every 4- and 8-byte word a kernel reads is aligned. */
    private static final long ALIGNMENT = 64;

    /** One block: the arena that owns it and its memory. */
    record Block(Arena arena, MemorySegment segment) implements DeviceAllocation {
        @Override
        public long byteSize() {
            return segment.byteSize();
        }
    }

    private final long capacity;
    private final AtomicLong allocated = new AtomicLong();

    TemplateMemory(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public long alignment() {
        return ALIGNMENT;
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        if (allocated.addAndGet(bytes) > capacity) {
            allocated.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException(
                    "template backend: " + bytes + " more bytes exceed its " + capacity
                            + "-byte memory (option template.memoryBytes)",
                    bytes);
        }
        Arena arena = Arena.ofShared();
        try {
            return new Block(arena, arena.allocate(bytes, ALIGNMENT));
        } catch (OutOfMemoryError failure) {
            arena.close();
            allocated.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException(
                    "template backend: the JVM could not allocate " + bytes + " bytes off-heap", bytes, failure);
        }
    }

    @Override
    public void free(DeviceAllocation allocation) {
        Block block = (Block) allocation;
        block.arena().close();
        allocated.addAndGet(-block.byteSize());
    }

    /** Synchronous and on no stream, as the SPI asks: the info words are in place before any later launch. */
    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        MemorySegment.copy(src, 0, segment(dst), 0, src.byteSize());
    }

    /** The memory of a slice the core handed over. */
    static MemorySegment segment(DeviceSlice slice) {
        return ((Block) slice.allocation()).segment().asSlice(slice.offset(), slice.length());
    }
}
