package dev.graphrt.examples;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import dev.graphrt.examples.bench.DecodeBench;

/**
 * Captures one small step on the cpu backend, replays it, checks the result exactly and prints the graph's
 * {@code toDot()} to standard output (the check goes to standard error). {@code scripts/graph-svg.sh} renders it
 * to {@code docs/graph-example.svg}.
 *
 * <p>The step is a residual block in miniature, four dependent launches of two kernels and two grids:
 * {@code a = 2 in + 1}, {@code out = -a}, {@code out += 3 in} (so {@code out = in - 1}), then {@code out += in} over
 * the first half only (a launch over half the grid). On the cpu backend the graph is a software recording and the
 * DOT is the core's: one box per launch, edges in stream order.
 */
public final class GraphPicture {
    private static final int N = 4096;

    private GraphPicture() {}

    public static void main(String[] args) {
        try (GraphRuntime rt = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
                GpuStream stream = rt.openStream()) {
            Kernel layer = rt.compile(DecodeLoopDemo.LAYER);
            Kernel saxpy = rt.compile(DecodeBench.SAXPY);
            float[] input = new float[N];
            for (int i = 0; i < N; i++) {
                input[i] = i % 11;
            }
            Buffer in = stream.upload(input);
            Buffer a = stream.allocate(N * 4L);
            Buffer out = stream.allocate(N * 4L);
            LaunchDims all = LaunchDims.linear(N, 256);
            LaunchDims half = LaunchDims.linear(N / 2, 128);
            try (Graph step = stream.capture(CaptureOptions.defaults(), s -> {
                s.launch(layer, all, KernelArgs.of(in, a).info(N).infoFloat(2f).infoFloat(1f));
                s.launch(
                        layer, all, KernelArgs.of(a, out).info(N).infoFloat(-1f).infoFloat(0f));
                s.launch(saxpy, all, KernelArgs.of(in, out).info(N).infoFloat(3f));
                s.launch(saxpy, half, KernelArgs.of(in, out).info(N / 2).infoFloat(1f));
            })) {
                step.replay();
                float[] result = stream.readFloats(out);
                for (int i = 0; i < N; i++) {
                    float want = i < N / 2 ? 2 * input[i] - 1 : input[i] - 1;
                    if (result[i] != want) {
                        throw new IllegalStateException("element " + i + ": " + result[i] + ", expected " + want);
                    }
                }
                System.err.println("graph #" + step.id() + " on " + rt.backendName() + ": "
                        + step.info().nodeCount() + " nodes, replayed once, result exact");
                System.out.print(step.toDot());
            } finally {
                in.close();
                a.close();
                out.close();
            }
        }
    }
}
