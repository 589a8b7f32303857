package dev.graphrt.core.runtime;

import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolSlice;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a runtime shares with the buffers and graphs it made, so that they never call back into the runtime or
 * a stream: the memory manager their storage returns to, whether the runtime is closed, and a count of buffers
 * closed while an operation still held them (streams fence their epochs when it moves). Lock-free apart from
 * the memory manager's own lock: a buffer's close must never wait for a stream.
 */
final class RuntimeScope {
    private final MemoryManager memory;
    private final String backend;
    private final String device;
    private final AtomicLong closedWhileHeld = new AtomicLong();
    /** Copies of other runtimes that use this runtime's memory now (see {@link #lend()}). */
    private final AtomicInteger lent = new AtomicInteger();

    private volatile boolean closed;

    /**
     * The scope of a runtime of {@code backend} on {@code device} ("cuda:1 NVIDIA H200"), whose storage returns to
     * {@code memory}.
     */
    RuntimeScope(MemoryManager memory, String backend, String device) {
        this.memory = memory;
        this.backend = backend;
        this.device = device;
    }

    /** The backend's name: a copy between runtimes needs the same backend on both sides. */
    String backend() {
        return backend;
    }

    /** The runtime's backend, device ordinal and device name, for messages that must tell two runtimes apart. */
    String device() {
        return device;
    }

    /** Returns a buffer's storage to the pools: its last holder let go. */
    void free(PoolSlice slice) {
        memory.release(slice);
    }

    /** Bytes of buffers closed by their users whose storage waits for the work still holding it. */
    private final AtomicLong awaitingRelease = new AtomicLong();

    /**
     * A buffer of {@code bytes} was closed by its user while an operation still held it: streams fence their epochs
     * soon, and the bytes count as memory on its way back to the pools until the last holder lets go.
     */
    void closedWhileHeld(long bytes) {
        closedWhileHeld.incrementAndGet();
        awaitingRelease.addAndGet(bytes);
    }

    /** The storage of a buffer counted by {@link #closedWhileHeld(long)} went back to the pools. */
    void releasedAfterClose(long bytes) {
        awaitingRelease.addAndGet(-bytes);
    }

    /** Bytes of closed buffers still held by work in flight: free memory to be, which the budget counts. */
    long awaitingReleaseBytes() {
        return awaitingRelease.get();
    }

    long closedWhileHeldCount() {
        return closedWhileHeld.get();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Lends this runtime's memory to a copy issued on another runtime's stream, until {@link #giveBack()}: false once
     * the runtime is closing (the copy is then refused). {@code CoreRuntime.close} waits, bounded, for every loan
     * before it frees device memory, so a peer copy never reads or writes memory this runtime gave back.
     */
    boolean lend() {
        lent.incrementAndGet();
        if (closed) {
            lent.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Ends a loan of {@link #lend()}. */
    void giveBack() {
        lent.decrementAndGet();
    }

    /** Loans not yet given back. */
    int lent() {
        return lent.get();
    }

    void close() {
        closed = true;
    }
}
