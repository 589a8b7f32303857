package dev.graphrt.core.runtime;

import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A stream as the other streams of its runtime and the runtime itself see it: what fork/join needs of the origin or
 * of a member (its lock, its lifecycle and memory, its membership), what an event needs of the stream it was recorded
 * on, and what the runtime calls when it closes or reclaims. The stream implements it; its parts, events and capture
 * groups know only this.
 */
interface StreamPeer {
    long id();

    /** The scope of the runtime the stream belongs to: an event or a graph of another runtime is refused. */
    RuntimeScope scope();

    /** Closes the stream (waits for its work, bounded); a no-op when already closed. */
    void close();

    boolean isClosed();

    /** Closed by its user and torn down later, when the capture that forbade it ends. */
    boolean closeDeferred();

    /** The lock that serialises the stream; fork/join takes a member's, then its origin's, never the reverse. */
    ReentrantLock lock();

    CaptureLifecycle lifecycle();

    StreamMemory memory();

    BackendStream backendStream();

    /** The capture this stream joined ended: its origin dissolved the group. */
    void leaveCapture();

    /** {@code member} waited for an event of this stream's warm-up and takes part in it now. */
    void addWarmupMember(StreamPeer member);

    /** The warm-up this stream joined ended. */
    void leaveWarmup();

    /** Whether the work before {@code fence} (of this stream) finished; a closed stream's work has. */
    boolean eventComplete(Fence fence);

    /** Waits, at most the wait timeout, for the work before {@code fence}. */
    void awaitEvent(Fence fence);

    /** Whether this stream's open capture forbids device calls from {@code thread} on other streams. */
    boolean forbidsDeviceCallsFrom(Thread thread);

    /** Ends an open capture window by the abort path (the stream or its runtime is closing). */
    void abandonCapture(String why);

    /** Returns finished releases to the pools; never blocks. */
    void reclaim();

    /**
     * This stream took part in {@code warmup}'s warm-up and a pass of it ends: waits (bounded) for this stream's work,
     * so what the pass closed here is free again, and reads checked mode's guards.
     */
    void settleForWarmup(StreamPeer warmup);
}
