package dev.graphrt.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The binder's meters report what the runtime and its caches report, on the cpu backend, with exact values. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphRTMetricsTest {
    private static final int N = 1024;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** out[i] = in[i] + 1, so a graph's work depends on its temporary. */
    private static final KernelSource ADD_ONE = KernelSource.named("add_one").java((args, from, to) -> {
        MemorySegment in = args.buffer(0);
        MemorySegment out = args.buffer(1);
        for (int i = from; i < Math.min(to, N); i++) {
            out.setAtIndex(FLOAT, i, in.getAtIndex(FLOAT, i) + 1f);
        }
    });

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private GraphRuntime runtime;
    private GpuStream stream;
    private GraphRTMetrics metrics;

    @BeforeEach
    void open() {
        runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        stream = runtime.openStream();
        metrics = new GraphRTMetrics(runtime, Tags.of("instance", "test"));
        metrics.bindTo(registry);
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    void memory_gauges_read_the_runtimes_stats_when_the_registry_reads_them() {
        double before = gauge("graphrt.memory.in.use");
        try (Buffer buffer = stream.allocate(N * 4L)) {
            assertThat(gauge("graphrt.memory.in.use"))
                    .isEqualTo(runtime.memoryStats().inUseBytes())
                    .isGreaterThanOrEqualTo(before + N * 4L);
            assertThat(gauge("graphrt.memory.reserved"))
                    .isEqualTo(runtime.memoryStats().reservedBytes())
                    .isGreaterThanOrEqualTo(N * 4L);
        }
        assertThat(gauge("graphrt.memory.in.use"))
                .isEqualTo(runtime.memoryStats().inUseBytes())
                .isEqualTo(before);
        assertThat(registry.get("graphrt.memory.reserved").gauge().getId().getTags())
                .extracting(tag -> tag.getKey() + "=" + tag.getValue())
                .contains("backend=cpu", "device=" + runtime.device().name(), "instance=test");
    }

    @Test
    void a_graphs_pinned_bytes_appear_on_refresh_and_go_when_the_graph_is_closed() {
        Kernel kernel = runtime.compile(ADD_ONE);
        try (Buffer in = stream.allocate(N * 4L);
                Buffer out = stream.allocate(N * 4L)) {
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                try (Buffer temporary = s.allocate(N * 4L)) {
                    s.launch(kernel, LaunchDims.linear(N, 64), KernelArgs.of(in, temporary));
                    s.launch(kernel, LaunchDims.linear(N, 64), KernelArgs.of(temporary, out));
                }
            });
            long pinned = runtime.memoryStats().pinnedPerGraph().get(graph.id());
            assertThat(pinned).isGreaterThanOrEqualTo(N * 4L);

            metrics.refresh();
            assertThat(registry.get("graphrt.graph.pinned")
                            .tag("graph", Long.toString(graph.id()))
                            .gauge()
                            .value())
                    .isEqualTo(pinned);
            assertThat(gauge("graphrt.memory.pinned"))
                    .isEqualTo(runtime.memoryStats().pinnedBytes())
                    .isGreaterThanOrEqualTo(pinned);

            graph.close();
            metrics.refresh();
            assertThat(registry.find("graphrt.graph.pinned")
                            .tag("graph", Long.toString(graph.id()))
                            .gauge())
                    .isNull();
        }
    }

    @Test
    void captures_replays_their_latency_until_the_synchronize_and_pool_growth_are_metered_until_closed() {
        Kernel kernel = runtime.compile(ADD_ONE);
        try (Buffer in = stream.allocate(N * 4L);
                Buffer out = stream.allocate(N * 4L)) {
            assertThat(registry.get("graphrt.pool.growths").counter().count()).isPositive();
            assertThat(registry.get("graphrt.pool.grown").counter().count()).isGreaterThanOrEqualTo(N * 4L);
            float[] data = new float[N];
            for (int i = 0; i < N; i++) {
                data[i] = 3f - i * 0.25f;
            }
            stream.write(in, data);
            Graph graph = stream.capture(
                    CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(N, 64), KernelArgs.of(in, out)));
            for (int i = 0; i < 3; i++) {
                graph.replay();
            }
            stream.synchronize();
            assertThat(stream.readFloats(out)[N - 1]).isEqualTo(data[N - 1] + 1f);

            assertThat(registry.get("graphrt.capture").timer().count()).isEqualTo(1);
            assertThat(registry.get("graphrt.replays").counter().count()).isEqualTo(3);
            Timer replay = registry.get("graphrt.replay").timer();
            assertThat(replay.count()).isEqualTo(3);
            assertThat(replay.max(TimeUnit.NANOSECONDS)).isPositive();

            metrics.close();
            graph.replay();
            stream.synchronize();
            assertThat(registry.get("graphrt.replays").counter().count()).isEqualTo(3);
            assertThat(registry.get("graphrt.replay").timer().count()).isEqualTo(3);
            graph.close();
        }
    }

    @Test
    void a_caches_counters_gauges_and_capture_timer_follow_its_stats() {
        Kernel kernel = runtime.compile(ADD_ONE);
        try (Buffer in = stream.allocate(N * 4L);
                Buffer out = stream.allocate(N * 4L);
                GraphCache<String> cache =
                        runtime.graphCache(stream, GraphCacheOptions.defaults().maxGraphs(1))) {
            metrics.bindCache(registry, cache, "decode");
            float[] data = new float[N];
            for (int i = 0; i < N; i++) {
                data[i] = i * 0.5f - 7f;
            }
            stream.write(in, data);
            for (String key : List.of("a", "a", "b", "b", "b")) {
                cache.run(key, s -> s.launch(kernel, LaunchDims.linear(N, 64), KernelArgs.of(in, out)));
            }
            float[] result = stream.readFloats(out);
            assertThat(result[3]).isEqualTo(data[3] + 1f);

            assertThat(counter("graphrt.cache.hits")).isEqualTo(3);
            assertThat(counter("graphrt.cache.misses")).isEqualTo(2);
            assertThat(counter("graphrt.cache.captures")).isEqualTo(2);
            assertThat(counter("graphrt.cache.evictions")).isEqualTo(1);
            assertThat(counter("graphrt.cache.eager.runs")).isZero();
            assertThat(registry.get("graphrt.cache.graphs")
                            .tag("cache", "decode")
                            .gauge()
                            .value())
                    .isEqualTo(1);
            assertThat(registry.get("graphrt.cache.pinned")
                            .tag("cache", "decode")
                            .gauge()
                            .value())
                    .isEqualTo(cache.stats().pinnedBytes());
            FunctionTimer capture =
                    registry.get("graphrt.cache.capture").tag("cache", "decode").functionTimer();
            assertThat(capture.count()).isEqualTo(2);
            // Micrometer keeps the total as a double in its base unit (seconds) and converts back: the nanoseconds
            // come back within half a nanosecond (31,683,539 came back as 31,683,538.999999996), not bit for bit.
            assertThat(capture.totalTime(TimeUnit.NANOSECONDS))
                    .isCloseTo(cache.stats().captureTime().toNanos(), within(0.5))
                    .isPositive();
        }
    }

    @Test
    void a_cache_without_a_name_is_refused_naming_the_argument() {
        try (GraphCache<String> cache = runtime.graphCache(stream, GraphCacheOptions.defaults())) {
            assertThatThrownBy(() -> metrics.bindCache(registry, cache, " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name:");
            assertThat(registry.find("graphrt.cache.hits").meters()).isEmpty();
        }
    }

    @Test
    void binding_to_a_closed_runtime_is_refused_and_registers_nothing() {
        GraphRuntime closed = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        GraphRTMetrics late = new GraphRTMetrics(closed, Tags.of("instance", "late"));
        closed.close();
        SimpleMeterRegistry other = new SimpleMeterRegistry();

        assertThatThrownBy(() -> late.bindTo(other))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("observe");
        assertThat(other.getMeters()).isEmpty();
    }

    @Test
    void a_closed_runtimes_gauges_still_read_without_failing_the_scrape() {
        runtime.close();
        assertThat(gauge("graphrt.memory.in.use"))
                .satisfiesAnyOf(
                        value -> assertThat(value).isNaN(),
                        value -> assertThat(value).isZero());
    }

    private double gauge(String name) {
        Gauge gauge = registry.get(name).gauge();
        return gauge.value();
    }

    private double counter(String name) {
        FunctionCounter counter = registry.get(name).tag("cache", "decode").functionCounter();
        return counter.count();
    }
}
