package dev.graphrt.core.runtime;

import java.time.Duration;
import java.util.Arrays;

/**
 * The replays a stream enqueued since its last synchronize, with when each was enqueued, so the synchronize can tell
 * observers how long each took until the host saw it done. Used under the stream's lock, and only while the runtime
 * has observers: a runtime without them never fills it. It holds at most {@value #MAX_PENDING} replays: a stream
 * that replays more between synchronizes (a loop that only flushes) reports the first ones, not an unbounded list.
 */
final class ReplayClock {
    static final int MAX_PENDING = 1 << 16;

    private long[] graphs = new long[16];
    private long[] enqueuedNanos = new long[16];
    private int size;

    void enqueued(long graph) {
        if (size == MAX_PENDING) {
            return;
        }
        if (size == graphs.length) {
            graphs = Arrays.copyOf(graphs, size * 2);
            enqueuedNanos = Arrays.copyOf(enqueuedNanos, size * 2);
        }
        graphs[size] = graph;
        enqueuedNanos[size] = System.nanoTime();
        size++;
    }

    /** Tells {@code observers} each pending replay completed now, then forgets them. */
    void completed(long stream, Observers observers) {
        long now = System.nanoTime();
        for (int i = 0; i < size; i++) {
            observers.replayCompleted(stream, graphs[i], Duration.ofNanos(now - enqueuedNanos[i]));
        }
        size = 0;
    }

    /** Forgets pending replays without reporting them (a failed synchronize, a close). */
    void clear() {
        size = 0;
    }
}
