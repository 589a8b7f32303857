package dev.graphrt.api;

import java.util.function.Consumer;

/**
 * Graphs of one step, one per key (a shape: a sequence length, a batch size), for a loop whose shapes vary:
 * {@code cache.run(key, step)} replays the graph captured for {@code key} and, on a miss, does what the
 * {@link GraphCacheOptions.MissPolicy miss policy} says. It keeps at most {@code maxGraphs} graphs, evicting the
 * least recently used (its graph is closed, so its memory returns once its replays are done), and counts what it
 * did ({@link #stats()}), so a loop that re-captures forever is visible instead of silently slow.
 *
 * <p>{@link #capture} fills the cache ahead of time, which is how a cache with miss policy {@code FAIL} gets its
 * graphs. Each call runs the step's work exactly once: a hit replays the graph; a miss that captures runs the step once
 * eagerly as the capture's one warm-up, then records it; a miss under {@code EAGER} runs it eagerly. Bucket the keys
 * ({@link Buckets}) so few graphs serve many shapes. Every graph replays on the cache's stream, and all are
 * captured into one {@link GraphPool} (the one in the options' capture options, or the cache's own, closed with
 * it), so they share their intermediates: temporaries the step closes. An output the step allocates and keeps open
 * (also one allocated on first use, {@code outputs.computeIfAbsent(key, k -> s.allocate(n))}) belongs to its key's
 * graph and is never shared. Calls are serialised by the cache.
 *
 * @param <K> the key; equal keys share a graph
 */
public interface GraphCache<K> extends AutoCloseable {

    /** Replays the graph of {@code key}, or on a miss captures it (or runs eagerly, or fails) as the policy says. */
    void run(K key, Consumer<GpuStream> step);

    /**
     * Captures {@code step} for {@code key} now, whatever the miss policy, so a cache with {@code FAIL} serves the
     * keys captured beforehand: fill it with every shape first (an ahead-of-time warm-up), then run with the policy
     * refusing any shape nobody prepared. The step runs once eagerly (the capture's warm-up), as on a miss. A key
     * already cached is refused (close and recreate the cache to capture a shape anew); the bound on graphs applies.
     */
    void capture(K key, Consumer<GpuStream> step);

    /** Whether a graph is cached for {@code key} (does not count as a use). */
    boolean contains(K key);

    /** Graphs cached now. */
    int size();

    /** What the cache did so far, and the bytes its graphs pin now. */
    GraphCacheStats stats();

    /** Closes every cached graph; later calls are refused. Closing twice is a no-op. */
    @Override
    void close();
}
