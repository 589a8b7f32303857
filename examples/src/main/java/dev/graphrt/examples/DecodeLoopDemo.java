package dev.graphrt.examples;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.core.GraphRT;
import java.util.Arrays;

/**
 * A decode loop in miniature: one step is a chain of dependent kernels (out = in * a + b per layer,
 * ping-ponging through two buffers). The step is captured once; then, per token, the input buffer is
 * rewritten in place and the graph replayed. Every result is checked against plain Java, and the time per
 * step is printed for eager launches and for replays. Runs on the best available backend.
 *
 * <p>Arguments: {@code [elements] [layers] [tokens]} (defaults 4096, 16, 200).
 */
public final class DecodeLoopDemo {
    private static final String CUDA = """
            extern "C" __global__ void layer(const float* in, float* out, const int* info) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                int n = info[0];
                if (i < n) {
                    float a = __int_as_float(info[1]);
                    float b = __int_as_float(info[2]);
                    out[i] = __fadd_rn(__fmul_rn(in[i], a), b);
                }
            }
            """;
    private static final String WGSL = """
            @group(0) @binding(0) var<storage, read_write> src: array<f32>;
            @group(0) @binding(1) var<storage, read_write> dst: array<f32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn layer(@builtin(global_invocation_id) id: vec3<u32>) {
                let i = i32(id.x);
                if (i < info[0]) {
                    dst[i] = src[i] * bitcast<f32>(info[1]) + bitcast<f32>(info[2]);
                }
            }
            """;
    /** The demo's layer kernel, y = x * a + b, in every dialect (also compiled by {@code KernelCacheBench}). */
    public static final KernelSource LAYER = KernelSource.named("layer")
            .cuda(CUDA)
            .wgsl(WGSL)
            .java(
                    (args, from, to) -> {
                        var src = args.buffer(0);
                        var dst = args.buffer(1);
                        int n = args.info(0);
                        float a = args.infoFloat(1);
                        float b = args.infoFloat(2);
                        for (int i = from; i < Math.min(to, n); i++) {
                            dst.setAtIndex(
                                    java.lang.foreign.ValueLayout.JAVA_FLOAT,
                                    i,
                                    src.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i) * a + b);
                        }
                    },
                    JavaParameters.buffersAndInfo(2));

    private DecodeLoopDemo() {}

    /** Layer l multiplies by a small integer and adds one, so every value stays an exact float. */
    static float scale(int layer) {
        return layer % 2 == 0 ? 2f : -1f;
    }

    static float shift(int layer) {
        return (layer % 5) - 2;
    }

    static float[] expected(float[] input, int layers) {
        float[] x = input.clone();
        for (int l = 0; l < layers; l++) {
            for (int i = 0; i < x.length; i++) {
                x[i] = x[i] * scale(l) + shift(l);
            }
        }
        return x;
    }

    static float[] token(int t, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = ((i * 7 + t * 13) % 41) - 20;
        }
        return x;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 4096;
        int layers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        if (layers % 2 != 0) {
            throw new IllegalArgumentException("layers must be even so the result lands in the output buffer");
        }
        for (String line : GraphRT.describeProviders()) {
            System.out.println("provider " + line);
        }
        try (GraphRuntime runtime = GraphRT.open();
                GpuStream stream = runtime.openStream()) {
            System.out.println("backend: " + runtime.device() + ", graphs: " + runtime.graphKind());
            Kernel layer = runtime.compile(LAYER);
            Buffer input = stream.upload(token(0, n));
            Buffer output = stream.allocate(n * 4L);
            Buffer scratch = stream.allocate(n * 4L);
            LaunchDims dims = LaunchDims.linear(n, 256);
            Runnable step = () -> {
                for (int l = 0; l < layers; l++) {
                    Buffer src = l == 0 ? input : (l % 2 == 1 ? scratch : output);
                    Buffer dst = l % 2 == 0 ? scratch : output;
                    stream.launch(
                            layer,
                            dims,
                            KernelArgs.of(src, dst).info(n).infoFloat(scale(l)).infoFloat(shift(l)));
                }
            };

            try (Graph graph = stream.capture(CaptureOptions.defaults(), s -> step.run())) {
                System.out.printf("captured: %s%n", graph.info());
                int checked = 0;
                for (int t = 0; t < tokens; t++) {
                    float[] x = token(t, n);
                    stream.write(input, x);
                    graph.replay();
                    if (t % 10 == 0 || t == tokens - 1) {
                        float[] got = stream.readFloats(output);
                        if (!Arrays.equals(got, expected(x, layers))) {
                            throw new AssertionError("token " + t + ": replay result differs from plain Java");
                        }
                        checked++;
                    }
                }
                System.out.printf(
                        "replayed %d tokens, %d results checked exactly against plain Java: OK%n", tokens, checked);

                double[] eager = new double[7];
                double[] replay = new double[7];
                int reps = 50;
                for (int round = 0; round < eager.length; round++) {
                    long t0 = System.nanoTime();
                    for (int r = 0; r < reps; r++) {
                        step.run();
                    }
                    stream.synchronize();
                    long t1 = System.nanoTime();
                    for (int r = 0; r < reps; r++) {
                        graph.replay();
                    }
                    stream.synchronize();
                    long t2 = System.nanoTime();
                    eager[round] = (t1 - t0) / 1e3 / reps;
                    replay[round] = (t2 - t1) / 1e3 / reps;
                }
                Arrays.sort(eager);
                Arrays.sort(replay);
                double e = eager[eager.length / 2];
                double g = replay[replay.length / 2];
                System.out.printf(
                        "per step (%d launches of %d floats), median of %d interleaved rounds: eager %.1f us, "
                                + "replay %.1f us (%.2fx)%n",
                        layers, n, eager.length, e, g, e / g);
            }
            input.close();
            output.close();
            scratch.close();
        }
    }
}
