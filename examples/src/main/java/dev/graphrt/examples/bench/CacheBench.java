package dev.graphrt.examples.bench;

import dev.graphrt.api.Buckets;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphCacheStats;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.Random;
import java.util.function.Consumer;

/**
 * A decode run of varying lengths through a {@link GraphCache} (issue 17): each token's step is K dependent saxpy
 * launches over its length padded to the next power of two (at least 64), the lengths drawn from a fixed seed up
 * to 4,096. The same tokens run once eagerly and once through the cache (keyed by bucket), each timed as a whole
 * (submit and a final synchronize); the result of both passes is checked exactly against the host's count of
 * launches per element. Arguments: {@code backend tokens launches} (default {@code cpu 10000 20}).
 */
public final class CacheBench {
    private static final int MAX = 4096;

    private CacheBench() {}

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "cpu";
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int launches = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        if (!run(backend, tokens, launches)) {
            System.exit(1);
        }
    }

    /** Runs the decode and prints its table; returns whether both passes computed exactly. */
    static boolean run(String backend, int tokens, int launches) {
        Buckets buckets = Buckets.powersOfTwo();
        int[] lengths = new Random(17).ints(tokens, 1, MAX + 1).toArray();
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream stream = runtime.openStream()) {
            Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
            float[] x = new float[MAX];
            float[] y0 = new float[MAX];
            for (int i = 0; i < MAX; i++) {
                x[i] = i % 3;
                y0[i] = i % 5;
            }
            long[] count = new long[MAX];
            for (int length : lengths) {
                int bucket = Math.max(64, buckets.bucket(length));
                for (int i = 0; i < bucket; i++) {
                    count[i] += launches;
                }
            }
            try (Buffer xs = stream.upload(x);
                    Buffer eagerY = stream.upload(y0);
                    Buffer cachedY = stream.upload(y0);
                    GraphCache<Integer> cache = runtime.graphCache(stream, GraphCacheOptions.defaults())) {
                stream.synchronize();
                long t0 = System.nanoTime();
                for (int length : lengths) {
                    step(saxpy, xs, eagerY, Math.max(64, buckets.bucket(length)), launches)
                            .accept(stream);
                }
                stream.synchronize();
                long t1 = System.nanoTime();
                for (int length : lengths) {
                    int bucket = Math.max(64, buckets.bucket(length));
                    cache.run(bucket, step(saxpy, xs, cachedY, bucket, launches));
                }
                stream.synchronize();
                long t2 = System.nanoTime();
                boolean exact = check(stream.readFloats(eagerY), x, y0, count)
                        && check(stream.readFloats(cachedY), x, y0, count);
                GraphCacheStats stats = cache.stats();
                System.out.println("device: " + runtime.device());
                System.out.println(
                        "tokens: " + tokens + " of lengths 1 to " + MAX + " (seed 17), padded to powers of two "
                                + "(at least 64); " + launches + " dependent saxpy launches per token");
                System.out.println();
                System.out.println("| tokens | buckets (graphs) | hit rate | captures | evictions | eager us/token "
                        + "| cached us/token | eager/cached | capture time ms | pinned by the cache | check |");
                System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
                System.out.printf(
                        "| %d | %d | %.4f | %d | %d | %.2f | %.2f | %.2fx | %.1f | %d B | %s |%n",
                        tokens,
                        stats.graphs(),
                        stats.hitRate(),
                        stats.captures(),
                        stats.evictions(),
                        (t1 - t0) / 1e3 / tokens,
                        (t2 - t1) / 1e3 / tokens,
                        (double) (t1 - t0) / (t2 - t1),
                        stats.captureTime().toNanos() / 1e6,
                        stats.pinnedBytes(),
                        exact ? "exact" : "FAILED");
                return exact && stats.captures() == stats.graphs() && stats.hits() + stats.misses() == tokens;
            }
        }
    }

    private static Consumer<GpuStream> step(Kernel saxpy, Buffer x, Buffer y, int bucket, int launches) {
        return s -> {
            for (int k = 0; k < launches; k++) {
                s.launch(
                        saxpy,
                        LaunchDims.linear(bucket, 256),
                        KernelArgs.of(x, y).info(bucket).infoFloat(2f));
            }
        };
    }

    private static boolean check(float[] y, float[] x, float[] y0, long[] count) {
        for (int i = 0; i < y.length; i++) {
            if (y[i] != y0[i] + 2f * x[i] * count[i]) {
                return false;
            }
        }
        return true;
    }
}
