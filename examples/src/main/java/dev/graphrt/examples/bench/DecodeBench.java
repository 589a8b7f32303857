package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The decode-shaped device benchmark: per row, a chain of K dependent saxpy launches over N floats
 * ({@code y = 2x + y}, in place, so each launch depends on the one before), run eagerly and as one graph
 * replay, rounds interleaved, medians reported per kernel. The last row is GPU-bound (1M elements): there
 * the two must be about equal, or the harness measures itself. Results are verified exactly at the end. All rows
 * run on one stream, as a decode loop does; a last line repeats the 1K x 1000 row on a second stream.
 *
 * <p>Arguments: {@code [backend] [rounds] [rows...]} where a row is {@code NxK}; backend options come from
 * system properties {@code -Dgraphrt.option.KEY=VALUE} (e.g. {@code wgpu.batch=1}). Default rows:
 * {@code 1024x150 1024x1000 65536x1000 1048576x500 16777216x100}). On an H200 one 1M-element saxpy takes about
 * as long as a launch, so the 16M row is the one that is truly GPU-bound.
 */
public final class DecodeBench {
    private static final String CUDA = """
            extern "C" __global__ void saxpy(const float* x, float* y, const int* info) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < info[0]) {
                    y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
                }
            }
            """;
    private static final String WGSL = """
            @group(0) @binding(0) var<storage, read_write> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> y: array<f32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
                let i = i32(id.x);
                if (i < info[0]) {
                    y[i] = bitcast<f32>(info[1]) * x[i] + y[i];
                }
            }
            """;
    static final KernelSource SAXPY = KernelSource.named("saxpy").cuda(CUDA).wgsl(WGSL).java((args, from, to) -> {
        var x = args.buffer(0);
        var y = args.buffer(1);
        int n = args.info(0);
        float a = args.infoFloat(1);
        for (int i = from; i < Math.min(to, n); i++) {
            y.setAtIndex(ValueLayout.JAVA_FLOAT, i, a * x.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                    + y.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
    });

    /** One measured configuration and its medians, in microseconds per kernel. */
    record Row(int elements, int launches, double eagerMicros, double replayMicros, double eagerSubmitMicros,
               long kernelsRun, boolean verified) {
        String markdown() {
            String label = (elements >= 1 << 20 ? (elements >> 20) + "M" : elements >= 1 << 10 ? (elements >> 10) + "K"
                    : String.valueOf(elements)) + " x " + launches + (elements >= 1 << 20 ? " (control)" : "");
            return String.format("| %s | %.2f | %.2f | %.2fx | %.2f | %s |", label, eagerMicros, replayMicros,
                    eagerMicros / replayMicros, eagerSubmitMicros,
                    verified ? "exact (" + kernelsRun + " kernels)" : "FAILED");
        }
    }

    private DecodeBench() {
    }

    static Row measure(GraphRuntime runtime, int n, int k, int rounds) {
        try (GpuStream stream = runtime.openStream()) {
            return measure(runtime, stream, n, k, rounds);
        }
    }

    static Row measure(GraphRuntime runtime, GpuStream stream, int n, int k, int rounds) {
        {
            Kernel saxpy = runtime.compile(SAXPY);
            float[] x = new float[n];
            float[] y0 = new float[n];
            for (int i = 0; i < n; i++) {
                x[i] = i % 7;
                y0[i] = i % 3;
            }
            Buffer xs = stream.upload(x);
            Buffer ys = stream.upload(y0);
            LaunchDims dims = LaunchDims.linear(n, 256);
            KernelArgs args = KernelArgs.of(xs, ys).info(n).infoFloat(2f);
            long kernels = 0;
            try (Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                for (int j = 0; j < k; j++) {
                    s.launch(saxpy, dims, args);
                }
            })) {
                kernels += k;
                double[] eager = new double[rounds];
                double[] replay = new double[rounds];
                double[] submit = new double[rounds];
                for (int warm = 0; warm < 3; warm++) {
                    for (int j = 0; j < k; j++) {
                        stream.launch(saxpy, dims, args);
                    }
                    graph.replay();
                    stream.synchronize();
                    kernels += 2L * k;
                }
                for (int r = 0; r < rounds; r++) {
                    long t0 = System.nanoTime();
                    for (int j = 0; j < k; j++) {
                        stream.launch(saxpy, dims, args);
                    }
                    long submitted = System.nanoTime();
                    stream.synchronize();
                    long t1 = System.nanoTime();
                    graph.replay();
                    stream.synchronize();
                    long t2 = System.nanoTime();
                    eager[r] = (t1 - t0) / 1e3 / k;
                    replay[r] = (t2 - t1) / 1e3 / k;
                    submit[r] = (submitted - t0) / 1e3 / k;
                    kernels += 2L * k;
                }
                float[] y = stream.readFloats(ys);
                boolean exact = true;
                for (int i = 0; i < n && exact; i++) {
                    exact = y[i] == y0[i] + 2f * kernels * x[i];
                }
                xs.close();
                ys.close();
                return new Row(n, k, median(eager), median(replay), median(submit), kernels, exact);
            }
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        List<int[]> rows = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] parts = args[i].split("x");
            rows.add(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])});
        }
        if (rows.isEmpty()) {
            rows = List.of(new int[] {1024, 150}, new int[] {1024, 1000}, new int[] {65536, 1000},
                    new int[] {1 << 20, 500}, new int[] {1 << 24, 100});
        }
        RuntimeOptions options = backend.isEmpty() ? RuntimeOptions.defaults() : RuntimeOptions.defaults().backend(backend);
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("graphrt.option.")) {
                options = options.backendOption(key.substring("graphrt.option.".length()), System.getProperty(key));
            }
        }
        boolean allExact = true;
        try (GraphRuntime runtime = GraphRT.open(options); GpuStream stream = runtime.openStream()) {
            System.out.println("device: " + runtime.device() + (options.backendOptions().isEmpty() ? ""
                    : ", options " + options.backendOptions()));
            System.out.println("rounds: " + rounds + " interleaved (eager pass, then replay pass), medians, per kernel,"
                    + " wall time of submit + synchronize, after an untimed JIT warm-up of 27,000 launches");
            System.out.println();
            System.out.println("| elements x launches | eager us/kernel | replay us/kernel | eager/replay "
                    + "| eager host submit us/launch | check |");
            System.out.println("|---|---|---|---|---|---|");
            // Untimed: let the JIT compile the launch and replay paths (C2 needs ~10k calls) before any row.
            allExact &= measure(runtime, stream, 256, 1000, 12).verified();
            for (int[] row : rows) {
                try {
                    Row result = measure(runtime, stream, row[0], row[1], rounds);
                    allExact &= result.verified();
                    System.out.println(result.markdown());
                } catch (IllegalArgumentException refused) {
                    System.out.println("| " + row[0] + " x " + row[1] + " | not run: " + refused.getMessage() + " | | | | |");
                }
            }
            try (GpuStream second = runtime.openStream()) {
                Row other = measure(runtime, second, 1024, 1000, rounds);
                allExact &= other.verified();
                System.out.println();
                System.out.printf("same row on a second stream of this runtime: eager %.2f, replay %.2f us/kernel%n",
                        other.eagerMicros(), other.replayMicros());
            }
        }
        if (!allExact) {
            System.out.println("verification FAILED");
            System.exit(4);
        }
    }
}
