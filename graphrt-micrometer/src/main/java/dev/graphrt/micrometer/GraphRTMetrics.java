package dev.graphrt.micrometer;

import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheStats;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.RuntimeObserver;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds one {@link GraphRuntime}'s memory, and the graph caches handed to {@link #bindCache}, to a Micrometer
 * registry. Every meter is tagged with {@code backend} and {@code device}; cache meters add {@code cache}.
 *
 * <p>Runtime gauges ({@code graphrt.memory.*}) read {@link GraphRuntime#memoryStats()} when the registry reads them,
 * so they are never stale. The per-graph and per-pool gauges ({@code graphrt.graph.pinned} with tag {@code graph},
 * {@code graphrt.pool.shared} with tag {@code pool}) come and go with graphs and pools, so they are a snapshot taken
 * by {@link #refresh()}: call it on the registry's publishing schedule. A refresh removes the rows of graphs and
 * pools that are gone. Binding also subscribes a {@link RuntimeObserver} that feeds {@code graphrt.capture} (a timer of
 * capture windows), {@code graphrt.replays} (a counter), {@code graphrt.replay} (a timer from a replay's enqueue
 * until the synchronize that saw it done) and {@code graphrt.pool.growths} / {@code graphrt.pool.grown} (per pool:
 * how often and by how many bytes); {@link #close()} ends that subscription. Meters hold the runtime and caches weakly: a binder never keeps a closed runtime alive, and a
 * gauge of a runtime that can no longer report reads {@code NaN} instead of failing the scrape.
 */
public final class GraphRTMetrics implements MeterBinder, AutoCloseable {
    private final GraphRuntime runtime;
    private final Tags tags;
    private final List<MultiGauge> perGraph = new ArrayList<>();
    private final List<MultiGauge> perPool = new ArrayList<>();
    private final List<RuntimeObserver.Subscription> subscriptions = new ArrayList<>();

    /** A binder of {@code runtime}'s meters; {@code extraTags} are added to every meter (for example an instance). */
    public GraphRTMetrics(GraphRuntime runtime, Tags extraTags) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(extraTags, "extraTags");
        this.tags = Tags.of(
                        "backend",
                        runtime.backendName(),
                        "device",
                        runtime.device().name())
                .and(extraTags);
    }

    public GraphRTMetrics(GraphRuntime runtime) {
        this(runtime, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        MeteringObserver observer = new MeteringObserver(registry, tags);
        RuntimeObserver.Subscription subscription = runtime.observe(observer); // a closed runtime: refused here
        observer.registerMeters();
        memoryGauge(
                registry,
                "graphrt.memory.reserved",
                "bytes held from the device by all pools",
                MemoryStats::reservedBytes);
        memoryGauge(
                registry,
                "graphrt.memory.in.use",
                "bytes handed out to live buffers, cache entries or graphs",
                MemoryStats::inUseBytes);
        memoryGauge(registry, "graphrt.memory.pinned", "bytes pinned by live graphs", MemoryStats::pinnedBytes);
        memoryGauge(
                registry,
                "graphrt.memory.retained",
                "bytes of the buffers live graphs retain",
                MemoryStats::retainedByGraphsBytes);
        memoryGauge(
                registry,
                "graphrt.memory.persistent.free",
                "free bytes in the persistent (capture) pool",
                MemoryStats::persistentFreeBytes);
        synchronized (this) {
            subscriptions.add(subscription);
            perGraph.add(MultiGauge.builder("graphrt.graph.pinned")
                    .tags(tags)
                    .baseUnit(BaseUnits.BYTES)
                    .description("bytes a live graph pins")
                    .register(registry));
            perPool.add(MultiGauge.builder("graphrt.pool.shared")
                    .tags(tags)
                    .baseUnit(BaseUnits.BYTES)
                    .description("bytes of the intermediates a graph pool's graphs share")
                    .register(registry));
        }
        refresh();
    }

    /** Stops the timers and counters fed by the runtime (gauges stay, reading the runtime when scraped). */
    @Override
    public synchronized void close() {
        subscriptions.forEach(RuntimeObserver.Subscription::close);
        subscriptions.clear();
    }

    /**
     * Re-reads the runtime's memory and replaces the per-graph and per-pool rows in every registry this binder was
     * bound to. Rows of closed graphs and released pools disappear.
     */
    public synchronized void refresh() {
        MemoryStats stats = runtime.memoryStats();
        perGraph.forEach(gauge -> gauge.register(rows("graph", stats.pinnedPerGraph()), true));
        perPool.forEach(gauge -> gauge.register(rows("pool", stats.sharedPerPool()), true));
    }

    /**
     * Binds {@code cache}'s counters ({@code graphrt.cache.hits}, {@code .misses}, {@code .captures},
     * {@code .eager.runs}, {@code .evictions}), its gauges ({@code graphrt.cache.graphs}, {@code .pinned}) and its
     * capture time ({@code graphrt.cache.capture}, a function timer over captures) to {@code registry}, tagged
     * {@code cache=name}. The cache must belong to this binder's runtime; the meters read its {@link
     * GraphCache#stats()} when the registry reads them.
     */
    public void bindCache(MeterRegistry registry, GraphCache<?> cache, String name) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(cache, "cache");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: a cache's meters need a non-blank name to tell caches apart");
        }
        Tags cacheTags = tags.and("cache", name);
        cacheCounter(
                registry,
                cache,
                cacheTags,
                "graphrt.cache.hits",
                "calls that replayed a cached graph",
                GraphCacheStats::hits);
        cacheCounter(
                registry,
                cache,
                cacheTags,
                "graphrt.cache.misses",
                "calls that found no graph",
                GraphCacheStats::misses);
        cacheCounter(
                registry, cache, cacheTags, "graphrt.cache.captures", "graphs captured", GraphCacheStats::captures);
        cacheCounter(
                registry,
                cache,
                cacheTags,
                "graphrt.cache.eager.runs",
                "misses run eagerly",
                GraphCacheStats::eagerRuns);
        cacheCounter(
                registry,
                cache,
                cacheTags,
                "graphrt.cache.evictions",
                "graphs evicted (closed)",
                GraphCacheStats::evictions);
        Gauge.builder("graphrt.cache.graphs", cache, c -> c.stats().graphs())
                .tags(cacheTags)
                .description("graphs cached now")
                .register(registry);
        Gauge.builder("graphrt.cache.pinned", cache, c -> c.stats().pinnedBytes())
                .tags(cacheTags)
                .baseUnit(BaseUnits.BYTES)
                .description("bytes the cached graphs pin")
                .register(registry);
        FunctionTimer.builder(
                        "graphrt.cache.capture",
                        cache,
                        c -> c.stats().captures(),
                        c -> c.stats().captureTime().toNanos(),
                        TimeUnit.NANOSECONDS)
                .tags(cacheTags)
                .description("wall time of the cache's captures, warm-up run included")
                .register(registry);
    }

    private void memoryGauge(
            MeterRegistry registry, String name, String description, ToLongFunction<MemoryStats> value) {
        ToDoubleFunction<GraphRuntime> read = r -> {
            try {
                return value.applyAsLong(r.memoryStats());
            } catch (GraphRTException lostOrClosed) {
                return Double.NaN;
            }
        };
        Gauge.builder(name, runtime, read)
                .tags(tags)
                .baseUnit(BaseUnits.BYTES)
                .description(description)
                .register(registry);
    }

    private static void cacheCounter(
            MeterRegistry registry,
            GraphCache<?> cache,
            Tags tags,
            String name,
            String description,
            ToLongFunction<GraphCacheStats> value) {
        FunctionCounter.builder(name, cache, c -> value.applyAsLong(c.stats()))
                .tags(tags)
                .description(description)
                .register(registry);
    }

    private static List<MultiGauge.Row<?>> rows(String tag, Map<Long, Long> bytesById) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>(bytesById.size());
        bytesById.forEach((id, bytes) -> rows.add(MultiGauge.Row.of(Tags.of(tag, Long.toString(id)), bytes)));
        return rows;
    }
}
