package dev.graphrt.api;

import java.time.Duration;

/**
 * Told what a runtime does, for metrics (the optional {@code graphrt-micrometer} module is one): a capture sealed, a
 * graph replayed, the replays a synchronize saw complete, a pool that grew. Register one with {@link
 * GraphRuntime#observe}. Calls come on the thread doing the work, some under a stream's lock, so an observer must
 * be quick, thread-safe and must not call back into the runtime. An observer that throws is logged and the
 * runtime's operation goes on: metrics never fail the work they measure. Every method defaults to doing nothing.
 */
public interface RuntimeObserver {
    /** A capture on {@code streamId} sealed graph {@code graphId} of {@code nodes} nodes; {@code took} is the window's wall time. */
    default void captured(long streamId, long graphId, int nodes, Duration took) {}

    /** {@code graphId} was enqueued for replay on {@code streamId} (a replay inside a capture is not one). */
    default void replayed(long streamId, long graphId) {}

    /**
     * A synchronize of {@code streamId} completed a replay of {@code graphId} enqueued {@code sinceEnqueue} earlier:
     * the replay's latency as the host sees it, bounded above by the synchronize. Only a successful synchronize
     * reports; replays a stream's close waits for are not reported.
     */
    default void replayCompleted(long streamId, long graphId, Duration sinceEnqueue) {}

    /** The {@code pool} ("dynamic", "persistent", ...) reserved {@code reservedBytes} more from the device for a request of {@code requestedBytes}. */
    default void poolGrew(String pool, long requestedBytes, long reservedBytes) {}

    /** What {@link GraphRuntime#observe} returns: closing it stops the calls; closing twice is a no-op. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }
}
