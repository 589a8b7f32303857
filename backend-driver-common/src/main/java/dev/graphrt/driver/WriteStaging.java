package dev.graphrt.driver;

import dev.graphrt.spi.Fence;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A ring of pinned chunks through which a stream's {@code write} copies host bytes before enqueueing an
 * asynchronous host-to-device copy ({@code cuMemcpyHtoDAsync_v2}, {@code hipMemcpyHtoDAsync}). The
 * caller's segment is only valid during the call and may be on the heap, so the bytes must be copied;
 * pinned memory lets the driver's copy run truly asynchronously.
 *
 * <p>Why chunks with one fence each, not one event per write: small writes (a token per decode step) are
 * bump-allocated in the current chunk; only when the ring moves on is a fence recorded, which covers every
 * copy enqueued from that chunk so far. A chunk is reused only after its fence completed, so no copy ever
 * reads bytes that were overwritten. Writes larger than a chunk are split and pipelined; pinned memory per
 * stream stays bounded ({@code chunkBytes * maxChunks}), and the ring waits for the oldest chunk when all
 * are in flight. Never used while the stream captures (captured writes own their bytes, see
 * {@link CapturedHostCopies}). Not thread-safe: the core serialises calls per stream.
 */
public final class WriteStaging {
    /** Where staged bytes go: enqueue a copy of {@code staged} to device address {@code dst}. */
    @FunctionalInterface
    public interface Copier {
        void copy(long dst, MemorySegment staged);
    }

    /** Bytes of one chunk unless the owner chooses otherwise. */
    public static final long DEFAULT_CHUNK_BYTES = 1L << 20;
    /** Chunks per stream unless the owner chooses otherwise. */
    public static final int DEFAULT_MAX_CHUNKS = 8;
    /** Pieces are aligned like this inside a chunk. */
    public static final long PIECE_ALIGNMENT = 16;
    /** A large write fills the rest of the current chunk only if at least this much is left. */
    public static final long MIN_SPLIT_PIECE = 64L << 10;

    private final PinnedHostMemory pinned;
    private final EventFences<?> fences;
    private final long chunkBytes;
    private final int maxChunks;
    private final List<Chunk> all = new ArrayList<>();
    private final ArrayDeque<Chunk> idle = new ArrayDeque<>();
    private final ArrayDeque<Chunk> inFlight = new ArrayDeque<>();
    private Chunk current;

    /** A ring of {@value #DEFAULT_MAX_CHUNKS} chunks of {@value #DEFAULT_CHUNK_BYTES} bytes. */
    public WriteStaging(PinnedHostMemory pinned, EventFences<?> fences) {
        this(pinned, fences, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_CHUNKS);
    }

    /**
     * A ring of at most {@code maxChunks} chunks of {@code chunkBytes} each, fenced on {@code fences} (the
     * owning stream's: a chunk's fence covers the copies enqueued from it on that stream).
     */
    public WriteStaging(PinnedHostMemory pinned, EventFences<?> fences, long chunkBytes, int maxChunks) {
        this.pinned = Objects.requireNonNull(pinned, "pinned");
        this.fences = Objects.requireNonNull(fences, "fences");
        if (chunkBytes < MIN_SPLIT_PIECE || chunkBytes % PIECE_ALIGNMENT != 0) {
            throw new IllegalArgumentException("chunkBytes must be a multiple of " + PIECE_ALIGNMENT + " and at least "
                    + MIN_SPLIT_PIECE + ", was " + chunkBytes);
        }
        if (maxChunks < 2) {
            throw new IllegalArgumentException("maxChunks must be at least 2, was " + maxChunks);
        }
        this.chunkBytes = chunkBytes;
        this.maxChunks = maxChunks;
    }

    /** Stages all of {@code src} and hands each staged piece to {@code copier}, destined for {@code dst + offset}. */
    public void write(long dst, MemorySegment src, Copier copier) {
        long total = src.byteSize();
        long done = 0;
        while (done < total) {
            long remaining = total - done;
            if (current == null) {
                advance();
            }
            long space = current.space();
            if (space < remaining && (remaining <= chunkBytes || space < MIN_SPLIT_PIECE)) {
                advance();
                space = current.space();
            }
            long piece = Math.min(remaining, space);
            MemorySegment staged = current.take(piece);
            MemorySegment.copy(src, done, staged, 0, piece);
            copier.copy(dst + done, staged);
            done += piece;
        }
    }

    /** The stream was synchronised: every copy finished, every chunk is free again. */
    public void allComplete() {
        inFlight.clear();
        idle.clear();
        for (Chunk chunk : all) {
            chunk.reset();
            if (chunk != current) {
                idle.addLast(chunk);
            }
        }
    }

    /** Chunks allocated so far. */
    public int chunkCount() {
        return all.size();
    }

    /** Frees every chunk; the owner synchronised the stream first. The first failure is rethrown. */
    public void close() {
        RuntimeException first = null;
        for (Chunk chunk : all) {
            try {
                pinned.free(chunk.memory);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        all.clear();
        idle.clear();
        inFlight.clear();
        current = null;
        if (first != null) {
            throw first;
        }
    }

    /** Retires the current chunk behind a fence and makes a free one current. */
    private void advance() {
        if (current != null) {
            if (current.used > 0) {
                current.fence = fences.record();
                inFlight.addLast(current);
            } else {
                idle.addFirst(current);
            }
            current = null;
        }
        Chunk next = idle.pollFirst();
        if (next == null) {
            Chunk oldest = inFlight.peekFirst();
            if (oldest != null && fences.isComplete(oldest.fence)) {
                next = inFlight.pollFirst();
            } else if (all.size() < maxChunks) {
                next = new Chunk(pinned.allocate(chunkBytes));
                all.add(next);
            } else {
                fences.await(Objects.requireNonNull(oldest, "a full ring has a chunk in flight").fence);
                next = inFlight.pollFirst();
            }
        }
        next.reset();
        current = next;
    }

    private static final class Chunk {
        private final MemorySegment memory;
        private long used;
        private Fence fence;

        private Chunk(MemorySegment memory) {
            this.memory = memory;
        }

        long space() {
            return memory.byteSize() - used;
        }

        MemorySegment take(long bytes) {
            MemorySegment piece = memory.asSlice(used, bytes);
            used = Math.min(memory.byteSize(), (used + bytes + PIECE_ALIGNMENT - 1) & -PIECE_ALIGNMENT);
            return piece;
        }

        void reset() {
            used = 0;
            fence = null;
        }
    }
}
