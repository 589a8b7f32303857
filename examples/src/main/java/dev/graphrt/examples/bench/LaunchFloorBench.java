package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * GraphRT's launch path beside a floor in the same process (issue 29): per row, a chain of K dependent saxpy
 * launches over N floats, run eagerly (K launches, then a synchronize) and as one graph replay, through GraphRT's
 * public API on {@code cuda} or {@code hip}, and through {@link CudaFloor} (plain FFM on the CUDA driver, no
 * GraphRT), with the four rounds interleaved: GraphRT eager, floor eager, GraphRT replay, floor replay. Medians
 * per kernel; each result is checked exactly at the end. One process, so the floor shares the JIT, the device and
 * its clocks with what it is compared to (a C floor in another process drifts by up to 1.4 µs a launch).
 *
 * <p>Arguments: {@code [backend] [rounds] [rows...]}, a row {@code NxK}; default {@code cuda 9 1024x150 1024x1000
 * 65536x1000}. Ends with {@code summary:} lines, one per row.
 */
public final class LaunchFloorBench {
    private static final float A = 2f;

    private LaunchFloorBench() {}

    record Row(
            int n,
            int k,
            double eager,
            double floorEager,
            double replay,
            double floorReplay,
            boolean exact,
            double launches,
            double floorLaunches,
            double waited,
            double floorWaited,
            double floorPolled) {
        /** Where an eager round's time goes: µs per kernel of the launch loop, µs per round of the wait after it. */
        String phases() {
            return String.format(
                    "| %s x %d | %.2f | %.2f | %.2fx | %.1f | %.1f | %+.1f | %.1f |",
                    DecodeBench.size(n),
                    k,
                    launches,
                    floorLaunches,
                    launches / floorLaunches,
                    waited,
                    floorWaited,
                    waited - floorWaited,
                    floorPolled);
        }

        String markdown() {
            return String.format(
                    "| %s x %d | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %s |",
                    DecodeBench.size(n),
                    k,
                    eager,
                    floorEager,
                    eager / floorEager,
                    replay,
                    floorReplay,
                    replay / floorReplay,
                    exact ? "exact" : "FAILED");
        }

        String summary(String backend) {
            return String.format(
                    "summary: backend=%s row=%sx%d eager_over_floor=%.3f replay_over_floor=%.3f",
                    backend, DecodeBench.size(n), k, eager / floorEager, replay / floorReplay);
        }
    }

    public static void main(String[] args) throws Throwable {
        String backend = args.length > 0 ? args[0] : "cuda";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        List<String> rows = args.length > 2
                ? Arrays.asList(args).subList(2, args.length)
                : List.of("1024x150", "1024x1000", "65536x1000");
        List<Row> measured = new ArrayList<>();
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                CudaFloor floor = new CudaFloor(cudaC(), "saxpy")) {
            for (String row : rows) {
                String[] nk = row.split("x");
                measured.add(measure(runtime, floor, Integer.parseInt(nk[0]), Integer.parseInt(nk[1]), rounds));
            }
            System.out.println("# Launch path beside an FFM floor in the same process: " + runtime.device());
            System.out.println();
            System.out.println(
                    "rounds: " + rounds + " (medians, µs per kernel; each round: GraphRT eager, floor eager, "
                            + "GraphRT replay, floor replay)");
            System.out.println();
            System.out.println(
                    "| row | GraphRT eager | floor eager | ratio | GraphRT replay | floor replay | ratio | check |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            measured.forEach(r -> System.out.println(r.markdown()));
            System.out.println();
            System.out.println("Eager rounds split (medians): the launch loop, µs per kernel, and the wait after it "
                    + "(synchronize; cuStreamSynchronize), µs per round; and the floor waiting as GraphRT does, on an "
                    + "event it polls (a fifth round of K launches)");
            System.out.println();
            System.out.println(
                    "| row | GraphRT launches | floor launches | ratio | GraphRT wait | floor wait | difference "
                            + "| floor polled wait |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            measured.forEach(r -> System.out.println(r.phases()));
            System.out.println();
            measured.forEach(r -> System.out.println(r.summary(backend)));
        }
    }

    /** The CUDA C of {@link DecodeBench#SAXPY}, which the floor compiles with NVRTC itself. */
    private static String cudaC() {
        return DecodeBench.SAXPY.text(Dialect.CUDA_C).orElseThrow();
    }

    /**
     * Both sides' launch, replay and wait paths called {@link HostPathWarmup#CALLS} times, so the rows time compiled
     * code: the rounds below call replay and the waits only a few dozen times (GraphRT on the row's own stream: the
     * eager launches of another stream would slow its replays, docs/benchmarks/cuda-h200.md).
     */
    private static void warmHostPaths(GraphRuntime runtime, GpuStream stream, CudaFloor floor) throws Throwable {
        HostPathWarmup.warm(runtime, stream);
        DecodeBench.Inputs small = DecodeBench.Inputs.of(256);
        try (CudaFloor.Problem warm = floor.new Problem(small.x(), small.y0(), 0f)) {
            for (int i = 0; i < HostPathWarmup.CALLS; i++) {
                warm.eager(1);
                warm.replay(1);
                warm.eagerPolledWait(1);
            }
        }
    }

    static Row measure(GraphRuntime runtime, CudaFloor floor, int n, int k, int rounds) throws Throwable {
        DecodeBench.Inputs inputs = DecodeBench.Inputs.of(n);
        float[] x = inputs.x();
        float[] y0 = inputs.y0();
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        LaunchDims dims = LaunchDims.linear(n, 256);
        try (GpuStream stream = runtime.openStream();
                Buffer xs = stream.upload(x);
                Buffer ys = stream.upload(y0);
                CudaFloor.Problem problem = floor.new Problem(x, y0, A)) {
            KernelArgs args = KernelArgs.of(xs, ys).info(n).infoFloat(A);
            warmHostPaths(runtime, stream, floor);
            long kernels = k; // the capture's warm-up ran the chain once
            long floorKernels = 0;
            double[] eager = new double[rounds];
            double[] floorEager = new double[rounds];
            double[] replay = new double[rounds];
            double[] floorReplay = new double[rounds];
            double[] launches = new double[rounds];
            double[] floorLaunches = new double[rounds];
            double[] waited = new double[rounds];
            double[] floorWaited = new double[rounds];
            double[] floorPolled = new double[rounds];
            try (Graph graph = DecodeBench.captureChain(stream, saxpy, dims, args, k)) {
                // Warm-up rounds first, at least three and at least 20,000 launches each way, so the JIT has compiled
                // both paths before the first timed round (a short row alone would time GraphRT's code cold).
                int warmups = Math.max(3, (20_000 + k - 1) / k);
                for (int r = -warmups; r < rounds; r++) {
                    long t0 = System.nanoTime();
                    for (int j = 0; j < k; j++) {
                        stream.launch(saxpy, dims, args);
                    }
                    long t0b = System.nanoTime();
                    stream.synchronize();
                    long t1 = System.nanoTime();
                    long fe = problem.eager(k);
                    long t2 = System.nanoTime();
                    graph.replay();
                    stream.synchronize();
                    long t3 = System.nanoTime();
                    long fr = problem.replay(k);
                    long fp = problem.eagerPolledWait(k);
                    kernels += 2L * k;
                    floorKernels += 3L * k;
                    if (r >= 0) {
                        eager[r] = (t1 - t0) / 1e3 / k;
                        floorEager[r] = fe / 1e3 / k;
                        replay[r] = (t3 - t2) / 1e3 / k;
                        floorReplay[r] = fr / 1e3 / k;
                        launches[r] = (t0b - t0) / 1e3 / k;
                        floorLaunches[r] = problem.launchNanos() / 1e3 / k;
                        waited[r] = (t1 - t0b) / 1e3;
                        floorWaited[r] = (fe - problem.launchNanos()) / 1e3;
                        floorPolled[r] = fp / 1e3;
                    }
                }
            }
            boolean exact =
                    DecodeBench.exact(stream.readFloats(ys), x, y0, kernels) && problem.verify(x, y0, A, floorKernels);
            return new Row(
                    n,
                    k,
                    DecodeBench.median(eager),
                    DecodeBench.median(floorEager),
                    DecodeBench.median(replay),
                    DecodeBench.median(floorReplay),
                    exact,
                    DecodeBench.median(launches),
                    DecodeBench.median(floorLaunches),
                    DecodeBench.median(waited),
                    DecodeBench.median(floorWaited),
                    DecodeBench.median(floorPolled));
        }
    }
}
