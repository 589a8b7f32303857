package dev.graphrt.core.runtime;

import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolSlice;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a runtime shares with the buffers and graphs it made, so that they never call back into the runtime or
 * a stream: the memory manager their storage returns to, whether the runtime is closed, and a count of buffers
 * closed while an operation still held them (streams fence their epochs when it moves). Lock-free apart from
 * the memory manager's own lock: a buffer's close must never wait for a stream.
 */
final class RuntimeScope {
    private final MemoryManager memory;
    private final AtomicLong closedWhileHeld = new AtomicLong();
    private volatile boolean closed;

    RuntimeScope(MemoryManager memory) {
        this.memory = memory;
    }

    /** Returns a buffer's storage to the pools: its last holder let go. */
    void free(PoolSlice slice) {
        memory.release(slice);
    }

    /** A buffer was closed by its user while an operation still held it: streams fence their epochs soon. */
    void closedWhileHeld() {
        closedWhileHeld.incrementAndGet();
    }

    long closedWhileHeldCount() {
        return closedWhileHeld.get();
    }

    boolean isClosed() {
        return closed;
    }

    void close() {
        closed = true;
    }
}
