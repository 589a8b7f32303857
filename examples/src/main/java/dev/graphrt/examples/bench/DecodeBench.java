package dev.graphrt.examples.bench;

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
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * as long as a launch, so the 16M row is the one that is truly GPU-bound. On wgpu its 65,536 workgroups exceed
 * WebGPU's 65,535 per dimension, so there the launch is a 2D grid that the WGSL kernel unfolds.
 *
 * <p><b>wgpu.</b> On the wgpu backend each row also runs the plain {@code webgpu.h} floor ({@link WebGpuFloor}) on
 * the same dispatch list, its rounds interleaved with GraphRT's, at one pass and chunks of 128 and 32; the table
 * gives the host split (time until the last submit returned) beside the total, a profile table adds the floor's
 * encode/submit split and the device's time from timestamp queries, and the run ends with one line per row:
 * {@code summary: backend=wgpu device=D row=NxK eager_over_replay=E replay_over_floor=F}. The floor needs the
 * library in {@code GRAPHRT_WEBGPU_LIB} (or {@code -Dgraphrt.option.wgpu.library}); {@code -Dbench.noFloor=true}
 * skips it, {@code -Dbench.device=NAME} names the device in the summary lines.
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
    /** 2D-aware: a grid wider than WebGPU's 65,535 workgroups per dimension spreads over gridY. */
    static final String WGSL = """
            @group(0) @binding(0) var<storage, read_write> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> y: array<f32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn saxpy(@builtin(global_invocation_id) id: vec3<u32>,
                     @builtin(num_workgroups) groups: vec3<u32>) {
                let i = i32(id.x + id.y * groups.x * 256u);
                if (i < info[0]) {
                    y[i] = bitcast<f32>(info[1]) * x[i] + y[i];
                }
            }
            """;
    /** {@code y = a x + y} in place over the first {@code info[0]} floats, {@code a} the float in {@code info[1]}. */
    public static final KernelSource SAXPY = KernelSource.named("saxpy")
            .cuda(CUDA)
            .wgsl(WGSL)
            .java(
                    (args, from, to) -> {
                        var x = args.buffer(0);
                        var y = args.buffer(1);
                        int n = args.info(0);
                        float a = args.infoFloat(1);
                        for (int i = from; i < Math.min(to, n); i++) {
                            y.setAtIndex(
                                    ValueLayout.JAVA_FLOAT,
                                    i,
                                    a * x.getAtIndex(ValueLayout.JAVA_FLOAT, i)
                                            + y.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                        }
                    },
                    JavaParameters.buffersAndInfo(2));

    /** The grid of one launch: linear, or for wgpu over 65,535 workgroups a 2D grid the WGSL kernel unfolds. */
    static LaunchDims dims(GraphRuntime runtime, int n) {
        LaunchDims linear = LaunchDims.linear(n, 256);
        if (!runtime.backendName().equals("wgpu") || linear.gridX() <= MAX_WGPU_GROUPS) {
            return linear;
        }
        int gridY = (linear.gridX() + MAX_WGPU_GROUPS - 1) / MAX_WGPU_GROUPS;
        int gridX = (linear.gridX() + gridY - 1) / gridY;
        return new LaunchDims(gridX, gridY, 1, 256, 1, 1);
    }

    private static final int MAX_WGPU_GROUPS = 65_535;

    /**
     * One measured configuration and its medians, in microseconds per kernel. "Host" is the time until the last
     * submission returned (eager: the launches and a flush; replay: the replay call); the device finishes after it.
     */
    record Row(
            int elements,
            int launches,
            double eagerMicros,
            double eagerHostMicros,
            double replayMicros,
            double replayHostMicros,
            FloorMedians floor,
            long kernelsRun,
            boolean verified) {
        String label() {
            return size(elements) + " x " + launches;
        }

        boolean control() {
            return elements >= 1 << 20;
        }

        String markdown() {
            return String.format(
                    "| %s | %.2f | %.2f | %.2fx | %.2f | %s |",
                    label() + (control() ? " (control)" : ""),
                    eagerMicros,
                    replayMicros,
                    eagerMicros / replayMicros,
                    eagerHostMicros,
                    check());
        }

        String markdownWithFloor() {
            return String.format(
                    "| %s | %.2f (host %.2f) | %.2f (host %.2f) | %.2f (chunk %d) | %s | %.2fx | %.2fx | %s |",
                    label() + (control() ? " (control)" : ""),
                    eagerMicros,
                    eagerHostMicros,
                    replayMicros,
                    replayHostMicros,
                    floor.bestMicros(),
                    floor.bestChunk(),
                    floor.shapes(),
                    eagerMicros / replayMicros,
                    replayMicros / floor.bestMicros(),
                    check());
        }

        String summary(String device) {
            return String.format(
                    "summary: backend=wgpu device=%s row=%sx%d eager_over_replay=%.2f replay_over_floor=%.2f",
                    device,
                    label().replace(" x " + launches, ""),
                    launches,
                    eagerMicros / replayMicros,
                    replayMicros / floor.bestMicros());
        }

        private String check() {
            return verified
                    ? "exact (" + kernelsRun + " kernels" + (floor != null ? ", floor exact" : "") + ")"
                    : "FAILED";
        }
    }

    private DecodeBench() {}

    static Row measure(GraphRuntime runtime, int n, int k, int rounds) {
        try (GpuStream stream = runtime.openStream()) {
            return measure(runtime, stream, n, k, rounds, null);
        }
    }

    /** A graph of {@code k} saxpy launches, each adding {@code 2 * x} to {@code y}. */
    static Graph captureChain(GpuStream stream, Kernel saxpy, LaunchDims dims, KernelArgs args, int k) {
        return stream.capture(CaptureOptions.defaults(), s -> {
            for (int j = 0; j < k; j++) {
                s.launch(saxpy, dims, args);
            }
        });
    }

    /** Whether {@code y} is exactly {@code y0 + 2 * kernels * x}: the result of {@code kernels} saxpy launches. */
    static boolean exact(float[] y, float[] x, float[] y0, long kernels) {
        for (int i = 0; i < y0.length; i++) {
            if (y[i] != y0[i] + 2f * kernels * x[i]) {
                return false;
            }
        }
        return true;
    }

    static Row measure(GraphRuntime runtime, GpuStream stream, int n, int k, int rounds, WebGpuFloor webgpu) {
        Kernel saxpy = runtime.compile(SAXPY);
        Inputs inputs = Inputs.of(n);
        float[] x = inputs.x();
        float[] y0 = inputs.y0();
        Buffer xs = stream.upload(x);
        Buffer ys = stream.upload(y0);
        LaunchDims dims = dims(runtime, n);
        KernelArgs args = KernelArgs.of(xs, ys).info(n).infoFloat(2f);
        int[] chunks = webgpu == null ? new int[0] : floorChunks(k);
        WebGpuFloor.Problem floor = webgpu == null ? null : webgpu.problem(x, y0, dims.gridX(), dims.gridY(), 2f);
        long kernels = 0;
        try (Graph graph = captureChain(stream, saxpy, dims, args, k)) {
            kernels += k;
            double[] eager = new double[rounds];
            double[] eagerHost = new double[rounds];
            double[] replay = new double[rounds];
            double[] replayHost = new double[rounds];
            double[][] floorTotal = new double[chunks.length][rounds];
            double[][] floorEncode = new double[chunks.length][rounds];
            double[][] floorSubmit = new double[chunks.length][rounds];
            double[][] floorBusy = new double[chunks.length][rounds];
            double[][] floorSpan = new double[chunks.length][rounds];
            for (int warm = 0; warm < 3; warm++) {
                for (int j = 0; j < k; j++) {
                    stream.launch(saxpy, dims, args);
                }
                graph.replay();
                stream.synchronize();
                kernels += 2L * k;
                for (int chunk : chunks) {
                    runFloor(floor, k, chunk);
                }
            }
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                for (int j = 0; j < k; j++) {
                    stream.launch(saxpy, dims, args);
                }
                stream.flush();
                long submitted = System.nanoTime();
                stream.synchronize();
                long t1 = System.nanoTime();
                graph.replay();
                long replayed = System.nanoTime();
                stream.synchronize();
                long t2 = System.nanoTime();
                eager[r] = (t1 - t0) / 1e3 / k;
                eagerHost[r] = (submitted - t0) / 1e3 / k;
                replay[r] = (t2 - t1) / 1e3 / k;
                replayHost[r] = (replayed - t1) / 1e3 / k;
                kernels += 2L * k;
                for (int c = 0; c < chunks.length; c++) {
                    WebGpuFloor.Timing t = runFloor(floor, k, chunks[c]);
                    floorTotal[c][r] = t.totalNs() / 1e3 / k;
                    floorEncode[c][r] = t.encodeNs() / 1e3 / k;
                    floorSubmit[c][r] = t.submitNs() / 1e3 / k;
                }
            }
            // Device time, in rounds of their own: the timestamp writes stay out of the timed rounds above.
            boolean stamped = webgpu != null && webgpu.hasTimestamps();
            for (int r = 0; stamped && r < rounds; r++) {
                for (int c = 0; c < chunks.length; c++) {
                    WebGpuFloor.Timing t = runFloor(floor, k, chunks[c], true);
                    floorBusy[c][r] = t.gpuBusyNs() / 1e3 / k;
                    floorSpan[c][r] = t.gpuSpanNs() / 1e3 / k;
                }
            }
            boolean exact = exact(stream.readFloats(ys), x, y0, kernels);
            FloorMedians measured = null;
            if (floor != null) {
                exact &= verifyFloor(floor);
                double[] totals = new double[chunks.length];
                double[] encodes = new double[chunks.length];
                double[] submits = new double[chunks.length];
                double[] busy = new double[chunks.length];
                double[] span = new double[chunks.length];
                for (int c = 0; c < chunks.length; c++) {
                    totals[c] = median(floorTotal[c]);
                    encodes[c] = median(floorEncode[c]);
                    submits[c] = median(floorSubmit[c]);
                    busy[c] = stamped ? median(floorBusy[c]) : Double.NaN;
                    span[c] = stamped ? median(floorSpan[c]) : Double.NaN;
                }
                measured = new FloorMedians(chunks, totals, encodes, submits, busy, span);
            }
            return new Row(
                    n,
                    k,
                    median(eager),
                    median(eagerHost),
                    median(replay),
                    median(replayHost),
                    measured,
                    kernels,
                    exact);
        } finally {
            xs.close();
            ys.close();
            if (floor != null) {
                floor.close();
            }
        }
    }

    /** The floor's chunk sizes for {@code k} launches: one pass, and chunks of 32 and 128 where shorter. */
    static int[] floorChunks(int k) {
        return java.util.stream.IntStream.of(k, 128, 32)
                .filter(c -> c <= k)
                .distinct()
                .toArray();
    }

    private static WebGpuFloor.Timing runFloor(WebGpuFloor.Problem floor, int k, int chunk) {
        return runFloor(floor, k, chunk, false);
    }

    private static WebGpuFloor.Timing runFloor(WebGpuFloor.Problem floor, int k, int chunk, boolean deviceTime) {
        try {
            return floor.run(k, chunk, deviceTime);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("the webgpu floor failed", t);
        }
    }

    private static boolean verifyFloor(WebGpuFloor.Problem floor) {
        try {
            return floor.verify(2f);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("the webgpu floor's check failed", t);
        }
    }

    /** A row's element count as the tables print it: "1K", "64K", "16M", or the number when it is not a whole one. */
    static String size(int n) {
        return n >= 1 << 20 && n % (1 << 20) == 0
                ? (n >> 20) + "M"
                : n >= 1 << 10 && n % (1 << 10) == 0 ? (n >> 10) + "K" : String.valueOf(n);
    }

    /**
     * The saxpy chain's inputs over {@code n} floats: {@code x = i mod 7}, {@code y = i mod 3}. Small integers, so the
     * result of every chain the benches run stays exact in float ({@link #exact}).
     */
    record Inputs(float[] x, float[] y0) {
        static Inputs of(int n) {
            float[] x = new float[n];
            float[] y0 = new float[n];
            for (int i = 0; i < n; i++) {
                x[i] = i % 7;
                y0[i] = i % 3;
            }
            return new Inputs(x, y0);
        }
    }

    /** The median (the upper one of an even count), as every table of the benches and the examples reports. */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The plain webgpu.h floor for a wgpu run, on the library GraphRT found; {@code null} elsewhere or if absent. */
    private static WebGpuFloor openFloor(GraphRuntime runtime) {
        if (!runtime.backendName().equals("wgpu") || Boolean.getBoolean("bench.noFloor")) {
            return null;
        }
        String library = System.getProperty("graphrt.option.wgpu.library", System.getenv("GRAPHRT_WEBGPU_LIB"));
        if (library == null || !Files.isRegularFile(Path.of(library))) {
            System.out.println("floor: not run (set GRAPHRT_WEBGPU_LIB to the webgpu.h library)");
            return null;
        }
        return WebGpuFloor.open(Path.of(library), WGSL, "saxpy");
    }

    /** A short device name for summary lines: {@code -Dbench.device}, else the adapter's first word. */
    private static String deviceTag(GraphRuntime runtime) {
        String tag = System.getProperty("bench.device");
        if (tag != null && !tag.isBlank()) {
            return tag;
        }
        String name = runtime.device().name().replace("NVIDIA ", "").strip();
        return name.isEmpty() ? "unknown" : name.split("[\\s(]+")[0];
    }

    /** Replays timed one by one for the latency table (the 1000-launch row gets a fifth of them). */
    private static final int LATENCY_REPLAYS = Integer.getInteger("graphrt.latencyReplays", 10_000);

    /**
     * The rows {@code NxK} of a bench's arguments from index 2 on ({@code [backend] [rounds] [rows...]}), or
     * {@code defaults} when none are given.
     */
    static List<int[]> rows(String[] args, List<int[]> defaults) {
        List<int[]> rows = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String[] parts = args[i].split("x");
            rows.add(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])});
        }
        return rows.isEmpty() ? defaults : rows;
    }

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        List<int[]> rows = rows(
                args,
                List.of(
                        new int[] {1024, 150},
                        new int[] {1024, 1000},
                        new int[] {65536, 1000},
                        new int[] {1 << 20, 500},
                        new int[] {1 << 24, 100}));
        RuntimeOptions options = backend.isEmpty()
                ? RuntimeOptions.defaults()
                : RuntimeOptions.defaults().backend(backend);
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("graphrt.option.")) {
                options = options.backendOption(key.substring("graphrt.option.".length()), System.getProperty(key));
            }
        }
        boolean allExact = true;
        List<String> summaries = new ArrayList<>();
        List<String> profile = new ArrayList<>();
        try (GraphRuntime runtime = GraphRT.open(options);
                GpuStream stream = runtime.openStream();
                WebGpuFloor floor = openFloor(runtime)) {
            System.out.println("device: " + runtime.device()
                    + (options.backendOptions().isEmpty() ? "" : ", options " + options.backendOptions()));
            System.out.println("rounds: " + rounds + " interleaved (eager pass, then replay pass"
                    + (floor != null ? ", then the plain webgpu.h floor at each chunk size" : "")
                    + "), medians, per kernel, wall time of submit + synchronize, after an untimed JIT warm-up");
            if (runtime.backendName().equals("wgpu")) {
                System.out.println("replay chunks: wgpu.replayChunk="
                        + options.backendOptions()
                                .getOrDefault(
                                        "wgpu.replayChunk",
                                        "auto (even chunks of at most 128 "
                                                + "dispatches on a GPU, of at most 4096 on a CPU adapter)")
                        + "; host = until the last submit "
                        + "returned (eager: launches + flush), the device finishes after it");
            }
            System.out.println();
            if (floor != null) {
                System.out.println("| elements x launches | eager us/kernel (host) | replay us/kernel (host) "
                        + "| floor: best (chunk) | floor per chunk size: total (host encode, host submit) "
                        + "| eager/replay | replay/floor | check |");
                System.out.println("|---|---|---|---|---|---|---|---|");
            } else {
                System.out.println("| elements x launches | eager us/kernel | replay us/kernel | eager/replay "
                        + "| eager host submit us/launch | check |");
                System.out.println("|---|---|---|---|---|---|");
            }
            // Untimed: let the JIT compile the launch and replay paths (C2 needs ~10k calls) before any row.
            allExact &= measure(runtime, stream, 256, 1000, 12, floor).verified();
            HostPathWarmup.warm(runtime, stream); // replay and synchronize too: the rows call each a few dozen times
            for (int[] row : rows) {
                try {
                    Row result = measure(runtime, stream, row[0], row[1], rounds, floor);
                    allExact &= result.verified();
                    System.out.println(floor != null ? result.markdownWithFloor() : result.markdown());
                    if (result.floor() != null) {
                        summaries.add(result.summary(deviceTag(runtime)));
                        profile.add(String.format(
                                "| %s | GraphRT eager | %.2f (encode + submit) | | | | %.2f |",
                                result.label(), result.eagerHostMicros(), result.eagerMicros()));
                        profile.add(String.format(
                                "| %s | GraphRT replay | %.2f (encode + submit) | | | | %.2f |",
                                result.label(), result.replayHostMicros(), result.replayMicros()));
                        profile.addAll(result.floor().profile(result.label()));
                    }
                } catch (IllegalArgumentException refused) {
                    System.out.println(
                            "| " + row[0] + " x " + row[1] + " | not run: " + refused.getMessage() + " | | | | |");
                }
            }
            try (GpuStream second = runtime.openStream()) {
                Row other = measure(runtime, second, 1024, 1000, rounds, null);
                allExact &= other.verified();
                System.out.println();
                System.out.printf(
                        "same row on a second stream of this runtime: eager %.2f, replay %.2f us/kernel%n",
                        other.eagerMicros(), other.replayMicros());
            }
            System.out.println();
            System.out.println("replay latency: each replay of the whole graph followed by a synchronize, timed alone "
                    + "(HdrHistogram), after 100 untimed replays; us per replay");
            System.out.println();
            System.out.println("| elements x launches | replays | p50 | p90 | p99 | p99.9 | max | mean | check |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (int[] tail : new int[][] {{1024, 150, LATENCY_REPLAYS}, {1024, 1000, LATENCY_REPLAYS / 5}}) {
                ReplayLatency.Tail result = ReplayLatency.measure(runtime, stream, tail[0], tail[1], tail[2]);
                allExact &= result.verified();
                System.out.println(result.markdown());
            }
        }
        if (!profile.isEmpty()) {
            System.out.println();
            System.out.println(
                    "profile, us per dispatch (medians): host time until the last submit returned, split into "
                            + "encoding and finish + submit where the program can split it; device time from timestamp queries "
                            + "where the adapter has them (busy: inside the passes; span: first pass start to last pass end)");
            System.out.println();
            System.out.println("| row | path | host encode | host submit | device busy | device span | total |");
            System.out.println("|---|---|---|---|---|---|---|");
            profile.forEach(System.out::println);
        }
        if (!summaries.isEmpty()) {
            System.out.println();
            summaries.forEach(System.out::println);
        }
        if (!allExact) {
            System.out.println("verification FAILED");
            System.exit(4);
        }
    }
}
