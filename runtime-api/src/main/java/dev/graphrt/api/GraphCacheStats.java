package dev.graphrt.api;

import java.time.Duration;

/**
 * What a {@link GraphCache} did so far.
 *
 * @param hits         calls that replayed a cached graph
 * @param misses       calls that found no graph (captured, ran eagerly or failed)
 * @param captures     graphs captured
 * @param eagerRuns    misses that ran the step eagerly ({@code EAGER} policy)
 * @param evictions    graphs evicted (closed) to stay within {@code maxGraphs}
 * @param captureTime  wall time spent capturing (the warm-up run included)
 * @param graphs       graphs cached now
 * @param pinnedBytes  bytes the cached graphs pin now
 */
public record GraphCacheStats(
        long hits,
        long misses,
        long captures,
        long eagerRuns,
        long evictions,
        Duration captureTime,
        int graphs,
        long pinnedBytes) {
    /** Hits over calls, 0 before the first call. */
    public double hitRate() {
        long calls = hits + misses;
        return calls == 0 ? 0 : (double) hits / calls;
    }
}
