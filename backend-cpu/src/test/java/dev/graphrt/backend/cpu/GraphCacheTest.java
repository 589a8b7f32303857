package dev.graphrt.backend.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buckets;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphCacheOptions.MissPolicy;
import dev.graphrt.api.GraphCacheStats;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A graph cache keyed by shape: each call runs the step exactly once (a hit replays, a miss captures with the
 * step's one warm-up as its run, or runs eagerly), at most maxGraphs graphs are kept, the least recently used is
 * evicted and closed, and the counters say what happened.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphCacheTest {
    private static final int N = 4096;
    private GraphRuntime runtime;
    private GpuStream stream;
    private Kernel pingPong;
    private Buffer in;
    private Buffer out;
    private int[] x;

    @BeforeEach
    void open() {
        runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        stream = runtime.openStream();
        pingPong = runtime.compile(KitKernels.PING_PONG);
        x = KitKernels.pattern(N, 5);
        in = stream.upload(x);
        out = stream.upload(KitKernels.poison(N));
    }

    @AfterEach
    void close() {
        stream.close();
        runtime.close();
    }

    /** One ping-pong launch over the first {@code n} elements of the key's bucket, step {@code n}. */
    private Consumer<GpuStream> step(int n, int bucket) {
        return s -> s.launch(
                pingPong, LaunchDims.linear(bucket, 256), KernelArgs.of(in, out).info(n, n));
    }

    private int[] expected(int n) {
        int[] y = KitKernels.pingPong(x, n);
        int[] result = KitKernels.poison(N);
        System.arraycopy(y, 0, result, 0, n);
        return result;
    }

    private void runAndCheck(GraphCache<Integer> cache, int n) {
        stream.write(out, KitKernels.poison(N));
        cache.run(n, step(n, n));
        assertThat(stream.readInts(out))
                .as("the step for %d ran exactly once", n)
                .isEqualTo(expected(n));
    }

    @Test
    void a_miss_captures_and_runs_once_and_a_hit_replays() {
        try (GraphCache<Integer> cache = runtime.graphCache(stream, GraphCacheOptions.defaults())) {
            runAndCheck(cache, 1000);
            runAndCheck(cache, 1000);
            runAndCheck(cache, 2000);
            runAndCheck(cache, 1000);

            GraphCacheStats stats = cache.stats();
            assertThat(stats.hits()).isEqualTo(2);
            assertThat(stats.misses()).isEqualTo(2);
            assertThat(stats.captures()).isEqualTo(2);
            assertThat(stats.graphs()).isEqualTo(2);
            assertThat(stats.hitRate()).isEqualTo(0.5);
            assertThat(stats.captureTime()).isPositive();
        }
    }

    @Test
    void beyond_max_graphs_the_least_recently_used_is_evicted_and_its_memory_released() {
        try (GraphCache<Integer> cache =
                runtime.graphCache(stream, GraphCacheOptions.defaults().maxGraphs(2))) {
            runAndCheck(cache, 100);
            runAndCheck(cache, 200);
            runAndCheck(cache, 100); // 200 is now the least recently used
            runAndCheck(cache, 300);

            assertThat(cache.contains(100)).isTrue();
            assertThat(cache.contains(300)).isTrue();
            assertThat(cache.contains(200)).as("evicted").isFalse();
            assertThat(cache.stats().evictions()).isEqualTo(1);
            runAndCheck(cache, 200); // captured again, evicting 100
            assertThat(cache.contains(100)).isFalse();
            assertThat(cache.stats().captures()).isEqualTo(4);
        }
        stream.synchronize();
        assertThat(runtime.memoryStats().pinnedBytes())
                .as("closing the cache closed its graphs")
                .isZero();
    }

    @Test
    void the_eager_policy_runs_a_new_key_eagerly_until_it_was_seen_enough_then_captures_it() {
        try (GraphCache<Integer> cache = runtime.graphCache(
                stream,
                GraphCacheOptions.defaults().missPolicy(MissPolicy.EAGER).eagerRunsFirst(2))) {
            runAndCheck(cache, 700);
            runAndCheck(cache, 700);
            assertThat(cache.contains(700)).as("two eager runs first").isFalse();
            runAndCheck(cache, 700);
            assertThat(cache.contains(700)).isTrue();
            runAndCheck(cache, 700);

            GraphCacheStats stats = cache.stats();
            assertThat(stats.eagerRuns()).isEqualTo(2);
            assertThat(stats.captures()).isEqualTo(1);
            assertThat(stats.hits()).isEqualTo(1);
            assertThat(stats.misses()).isEqualTo(3);
        }
    }

    @Test
    void the_fail_policy_refuses_a_miss_naming_the_key_and_runs_nothing() {
        try (GraphCache<Integer> cache =
                runtime.graphCache(stream, GraphCacheOptions.defaults().missPolicy(MissPolicy.FAIL))) {
            stream.write(out, KitKernels.poison(N));
            assertThatThrownBy(() -> cache.run(512, step(512, 512)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("key 512")
                    .hasMessageContaining("FAIL");
            assertThat(stream.readInts(out)).containsOnly(KitKernels.POISON);
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void a_fail_policy_cache_filled_beforehand_serves_the_captured_keys_and_refuses_the_others() {
        try (GraphCache<Integer> cache =
                runtime.graphCache(stream, GraphCacheOptions.defaults().missPolicy(MissPolicy.FAIL))) {
            stream.write(out, KitKernels.poison(N));
            cache.capture(1000, step(1000, 1000));
            assertThat(stream.readInts(out)).as("the capture ran the step once").isEqualTo(expected(1000));
            cache.capture(2000, step(2000, 2000));
            assertThatThrownBy(() -> cache.capture(2000, step(2000, 2000)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("key:")
                    .hasMessageContaining("2000");

            runAndCheck(cache, 1000);
            runAndCheck(cache, 2000);
            assertThatThrownBy(() -> cache.run(512, step(512, 512)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cache.capture");
            GraphCacheStats stats = cache.stats();
            assertThat(stats.captures()).isEqualTo(2);
            assertThat(stats.hits()).isEqualTo(2);
            assertThat(cache.size()).isEqualTo(2);
        }
    }

    @Test
    void bucketed_keys_let_one_graph_serve_every_size_up_to_its_bucket() {
        Buckets buckets = Buckets.powersOfTwo();
        try (GraphCache<Integer> cache = runtime.graphCache(stream, GraphCacheOptions.defaults())) {
            for (int n : new int[] {300, 400, 500, 512, 600, 1000, 1024}) {
                int bucket = buckets.bucket(n);
                stream.write(out, KitKernels.poison(N));
                cache.run(
                        bucket,
                        s -> s.launch(
                                pingPong,
                                LaunchDims.linear(bucket, 256),
                                KernelArgs.of(in, out).info(n, 3)));
                int[] y = KitKernels.pingPong(x, 3);
                // a bucket's graph replays the info words it recorded (the first size seen in the bucket)
                assertThat(stream.readInts(out))
                        .as("n = %d", n)
                        .startsWith(Arrays.copyOf(y, Math.min(n, firstSizeOf(bucket))));
            }
            assertThat(cache.size()).as("buckets 512 and 1024").isEqualTo(2);
        }
    }

    private static int firstSizeOf(int bucket) {
        return bucket == 512 ? 300 : 600;
    }

    @Test
    void buckets_pad_to_the_next_power_of_two_or_the_next_listed_size() {
        Buckets pow = Buckets.powersOfTwo();
        assertThat(pow.bucket(1)).isEqualTo(1);
        assertThat(pow.bucket(2)).isEqualTo(2);
        assertThat(pow.bucket(3)).isEqualTo(4);
        assertThat(pow.bucket(1025)).isEqualTo(2048);
        Buckets listed = Buckets.of(128, 32, 512, 32);
        assertThat(listed.bucket(1)).isEqualTo(32);
        assertThat(listed.bucket(33)).isEqualTo(128);
        assertThat(listed.bucket(512)).isEqualTo(512);
        assertThatThrownBy(() -> listed.bucket(513))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("largest bucket, 512");
        assertThatThrownBy(() -> pow.bucket(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
