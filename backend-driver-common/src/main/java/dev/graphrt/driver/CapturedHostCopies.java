package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The pinned host bytes of the writes recorded during one capture. A recorded asynchronous host-to-device
 * copy ({@code cuMemcpyHtoDAsync_v2}, {@code hipMemcpyHtoDAsync}) becomes a memcpy node that re-reads its
 * source at every replay, so the source must belong to the graph and live exactly as long as it: these
 * blocks move to the backend's graph object when the capture seals ({@link #transfer}), and are freed with
 * it (or at once when the capture aborts, since nothing ever ran from them).
 *
 * <p>Why a reservation: pinned allocation inside a capture is done under a RELAXED capture-mode exchange,
 * which the driver allows, but the backend avoids it where it can. The bytes written during the warm-up
 * predict the capture's writes, so {@link #reserve} allocates them before capture begins, and small writes
 * share blocks (bump allocation). Not thread-safe: the core serialises calls per stream.
 */
public final class CapturedHostCopies {
    /** Staged copies start at multiples of this. */
    public static final long ALIGNMENT = 16;
    /** Smallest block allocated. */
    public static final long MIN_BLOCK = 4096;
    /** Largest block allocated by doubling (a larger single write still gets a block of its size). */
    public static final long MAX_GROWTH_BLOCK = 4L << 20;

    private final PinnedHostMemory pinned;
    private final List<MemorySegment> blocks = new ArrayList<>();
    private MemorySegment current;
    private long used;
    private long stagedBytes;

    public CapturedHostCopies(PinnedHostMemory pinned) {
        this.pinned = Objects.requireNonNull(pinned, "pinned");
    }

    /** Allocates room for {@code bytes} of writes now, before the capture begins. */
    public void reserve(long bytes) {
        if (bytes > 0) {
            newBlock(bytes);
        }
    }

    /** Copies {@code src} into graph-owned pinned memory and returns that copy. */
    public MemorySegment stage(MemorySegment src) {
        long bytes = src.byteSize();
        if (current == null || current.byteSize() - used < bytes) {
            newBlock(bytes);
        }
        MemorySegment staged = current.asSlice(used, bytes);
        staged.copyFrom(src);
        used = Math.min(current.byteSize(), align(used + bytes));
        stagedBytes += bytes;
        return staged;
    }

    /** Bytes staged so far. */
    public long stagedBytes() {
        return stagedBytes;
    }

    /** Pinned bytes held. */
    public long heldBytes() {
        long sum = 0;
        for (MemorySegment block : blocks) {
            sum += block.byteSize();
        }
        return sum;
    }

    /** Hands every block to the caller (the sealed graph); this object then holds nothing. */
    public List<MemorySegment> transfer() {
        List<MemorySegment> moved = List.copyOf(blocks);
        blocks.clear();
        current = null;
        used = 0;
        return moved;
    }

    /** Frees every block still held. The first failure is rethrown after all were attempted. */
    public void free() {
        freeAll(pinned, transfer());
    }

    /** Frees {@code blocks}; the first failure is rethrown after all were attempted. */
    public static void freeAll(PinnedHostMemory pinned, List<MemorySegment> blocks) {
        RuntimeException first = null;
        for (MemorySegment block : blocks) {
            try {
                pinned.free(block);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void newBlock(long atLeast) {
        long grown = current == null ? MIN_BLOCK : Math.min(MAX_GROWTH_BLOCK, current.byteSize() * 2);
        long size = Math.max(roundUp(atLeast, MIN_BLOCK), Math.max(MIN_BLOCK, grown));
        MemorySegment block = pinned.allocate(size);
        blocks.add(block);
        current = block;
        used = 0;
    }

    private static long align(long value) {
        return (value + ALIGNMENT - 1) & -ALIGNMENT;
    }

    private static long roundUp(long value, long unit) {
        return (value + unit - 1) / unit * unit;
    }
}
