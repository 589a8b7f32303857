package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphCacheStats;
import dev.graphrt.api.GraphPool;
import dev.graphrt.core.events.GraphCacheEvent;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's {@link GraphCache}: an access-ordered map from key to graph (least recently used first), and for the
 * EAGER policy a bounded count of the eager runs of keys not captured yet. Its graphs are captured into one
 * {@link GraphPool} (the options' or its own), so they share their intermediates. Calls are serialised by the cache's
 * monitor; the graphs themselves are ordinary graphs of the stream (closing one releases its memory after its
 * replays, as for any graph).
 */
final class CoreGraphCache<K> implements GraphCache<K> {
    private static final Logger LOG = LoggerFactory.getLogger(CoreGraphCache.class);

    private final GpuStream stream;
    private final GraphCacheOptions options;
    private final CaptureOptions capture;
    /** The pool the cache's graphs share: the options', or one of its own (closed with the cache). */
    private final @Nullable GraphPool pool;

    private final boolean ownPool;
    private final LinkedHashMap<K, Graph> graphs = new LinkedHashMap<>(16, 0.75f, true);
    /** Eager runs per key not yet captured (EAGER policy), bounded to 4 x maxGraphs keys, oldest dropped. */
    private final LinkedHashMap<K, Integer> eagerRuns = new LinkedHashMap<>(16, 0.75f, true);

    private long hits;
    private long misses;
    private long captures;
    private long eagerCount;
    private long evictions;
    private long captureNanos;
    private boolean closed;

    CoreGraphCache(GpuStream stream, GraphCacheOptions options, @Nullable GraphPool fresh) {
        this.stream = stream;
        this.options = Objects.requireNonNull(options, "options");
        this.ownPool = options.capture().pool() == null;
        this.pool = ownPool ? fresh : options.capture().pool();
        this.capture = options.capture().warmups(1).pool(pool);
    }

    @Override
    public synchronized void run(K key, Consumer<GpuStream> step) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(step, "step");
        if (closed) {
            throw new IllegalStateException("run: the graph cache is closed");
        }
        Graph graph = graphs.get(key);
        if (graph != null) {
            hits++;
            graph.replay();
            return;
        }
        misses++;
        switch (options.missPolicy()) {
            case FAIL -> {
                event(key, "miss refused");
                throw new IllegalStateException("run: no graph is cached for key " + key + " and the miss policy is "
                        + "FAIL; capture every key first (cache.capture(key, step)) or bucket the keys");
            }
            case EAGER -> {
                int ran = eagerRuns.getOrDefault(key, 0);
                if (ran < options.eagerRunsFirst()) {
                    step.accept(stream);
                    eagerCount++;
                    eagerRuns.put(key, ran + 1);
                    trimEagerRuns();
                    event(key, "miss run eagerly");
                    return;
                }
                captureFor(key, step);
            }
            case CAPTURE -> captureFor(key, step);
        }
    }

    @Override
    public synchronized void capture(K key, Consumer<GpuStream> step) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(step, "step");
        if (closed) {
            throw new IllegalStateException("capture: the graph cache is closed");
        }
        if (graphs.containsKey(key)) {
            throw new IllegalArgumentException(
                    "key: a graph is already cached for " + key + "; a cache keeps one " + "graph per key");
        }
        captureFor(key, step);
    }

    /** Captures {@code step} for {@code key} (its one warm-up is the call's run) and evicts beyond the bound. */
    private void captureFor(K key, Consumer<GpuStream> step) {
        long start = System.nanoTime();
        Graph graph = stream.capture(capture, step);
        captureNanos += System.nanoTime() - start;
        captures++;
        eagerRuns.remove(key);
        graphs.put(key, graph);
        event(key, "miss captured");
        for (Iterator<Map.Entry<K, Graph>> it = graphs.entrySet().iterator(); graphs.size() > options.maxGraphs(); ) {
            Map.Entry<K, Graph> eldest = it.next();
            it.remove();
            eldest.getValue().close();
            evictions++;
            LOG.debug("graph cache on stream #{}: evicted the graph of key {}", stream.id(), eldest.getKey());
            event(eldest.getKey(), "evicted");
        }
    }

    private void trimEagerRuns() {
        for (Iterator<K> it = eagerRuns.keySet().iterator(); eagerRuns.size() > 4 * options.maxGraphs(); ) {
            it.next();
            it.remove();
        }
    }

    private void event(Object key, String outcome) {
        GraphCacheEvent event = new GraphCacheEvent();
        if (event.shouldCommit()) {
            event.stream = stream.id();
            event.key = String.valueOf(key);
            event.outcome = outcome;
            event.graphs = graphs.size();
            event.pinnedBytes = pinnedBytes();
            event.commit();
        }
    }

    private long pinnedBytes() {
        long pinned = 0;
        for (Graph graph : graphs.values()) {
            if (!graph.isClosed()) {
                pinned += graph.info().pinnedBytes();
            }
        }
        return pinned;
    }

    @Override
    public synchronized boolean contains(K key) {
        return graphs.containsKey(key);
    }

    @Override
    public synchronized int size() {
        return graphs.size();
    }

    @Override
    public synchronized GraphCacheStats stats() {
        return new GraphCacheStats(
                hits,
                misses,
                captures,
                eagerCount,
                evictions,
                Duration.ofNanos(captureNanos),
                graphs.size(),
                pinnedBytes());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (Graph graph : graphs.values()) {
            try {
                graph.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        graphs.clear();
        eagerRuns.clear();
        if (ownPool && pool != null) {
            pool.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "graph cache on stream #" + stream.id() + " (" + graphs.size() + "/" + options.maxGraphs() + " graphs)";
    }
}
