package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import org.HdrHistogram.Histogram;

/**
 * The tail of replay latency, which decode users feel as a slow token: one graph of {@code k} saxpy launches replayed
 * {@code replays} times, each replay followed by a synchronize and timed on its own (replay call to synchronize
 * return) into an HdrHistogram. The result is checked exactly at the end, as in {@link DecodeBench}.
 */
final class ReplayLatency {
    /** Microseconds per replay (the whole graph, not per kernel). */
    record Tail(
            int elements,
            int launches,
            int replays,
            double p50,
            double p90,
            double p99,
            double p999,
            double max,
            double mean,
            boolean verified) {
        String markdown() {
            return String.format(
                    "| %d x %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |",
                    elements, launches, replays, p50, p90, p99, p999, max, mean, verified ? "exact" : "WRONG");
        }
    }

    private ReplayLatency() {}

    static Tail measure(GraphRuntime runtime, GpuStream stream, int n, int k, int replays) {
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        float[] x = new float[n];
        float[] y0 = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (i % 7) - 3;
            y0[i] = i % 3; // integers: every partial sum stays exact in a float (below 2^24)
        }
        Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        try (Buffer xs = stream.upload(x);
                Buffer ys = stream.upload(y0)) {
            LaunchDims dims = DecodeBench.dims(runtime, n);
            KernelArgs args = KernelArgs.of(xs, ys).info(n).infoFloat(2f);
            long kernels = 0;
            try (Graph graph = DecodeBench.captureChain(stream, saxpy, dims, args, k)) {
                kernels += k;
                for (int warm = 0; warm < 100; warm++) { // untimed: the JIT and the driver settle
                    graph.replay();
                    stream.synchronize();
                    kernels += k;
                }
                for (int r = 0; r < replays; r++) {
                    long t0 = System.nanoTime();
                    graph.replay();
                    stream.synchronize();
                    histogram.recordValue(System.nanoTime() - t0);
                    kernels += k;
                }
            }
            boolean exact = DecodeBench.exact(stream.readFloats(ys), x, y0, kernels);
            return new Tail(
                    n,
                    k,
                    replays,
                    micros(histogram.getValueAtPercentile(50)),
                    micros(histogram.getValueAtPercentile(90)),
                    micros(histogram.getValueAtPercentile(99)),
                    micros(histogram.getValueAtPercentile(99.9)),
                    micros(histogram.getMaxValue()),
                    histogram.getMean() / 1e3,
                    exact);
        }
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }
}
