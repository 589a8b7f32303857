package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.ArrayList;
import java.util.List;

/**
 * DecodeBench's saxpy chain with the kernel opted into programmatic dependent launch, beside the same chain of
 * plain launches, on one stream: per row, K dependent launches over N floats eagerly and as one graph replay, both
 * kinds, rounds interleaved, medians of wall time per kernel (submit + synchronize), every result checked exactly.
 * The C program {@code examples/src/main/native/dependent_launch_floor.cu} measures the same four in the same job
 * ({@code scripts/gpu-run.sh pdl}), which puts the ratios beside each other.
 *
 * <p>Where the backend does not declare {@code PROGRAMMATIC_DEPENDENT_LAUNCH} the opted-in kernel runs as an
 * ordinary launch, so its column is a control: it should equal the plain one. Arguments:
 * {@code [backend] [rounds] [rows...]}, rows {@code NxK} (default {@code 1024x1000 1024x100 65536x1000}). Ends with
 * one line per row: {@code summary: backend=B row=NxK declared=D eager=E eager_pdl=P replay=G replay_pdl=Q
 * device_replay=R device_replay_pdl=S}, the last two the replays' time on the device alone (cuda only; see
 * {@link #STAMP}).
 */
public final class DependentLaunchBench {
    /** The saxpy of DecodeBench, waiting for its predecessors first and letting its successor start last. */
    static final KernelSource SAXPY_DEPENDENT = KernelSource.named("saxpy_dependent")
            .cuda("""
                    extern "C" __global__ void saxpy_dependent(const float* x, float* y, const int* info) {
                        graphrt_wait_for_predecessors();
                        int i = blockIdx.x * blockDim.x + threadIdx.x;
                        if (i < info[0]) {
                            y[i] = __fadd_rn(__fmul_rn(__int_as_float(info[1]), x[i]), y[i]);
                        }
                        graphrt_launch_dependents();
                    }
                    """)
            .wgsl(DecodeBench.WGSL.replace("fn saxpy(", "fn saxpy_dependent("))
            .java(
                    DecodeBench.SAXPY.javaKernel().orElseThrow(),
                    DecodeBench.SAXPY.javaParameters().orElseThrow())
            .programmaticDependent();

    /**
     * Reads the device's clock ({@code %globaltimer}, ns) into {@code out[info[0]]}, after spinning {@code info[1]}
     * ns: launched before a replay with a spin long enough that the graph is queued before it ends, and after it with
     * none, the two stamps bound the replay's time on the device alone, whatever the host did around it. CUDA only.
     */
    static final KernelSource STAMP = KernelSource.named("stamp").cuda("""
                    extern "C" __global__ void stamp(unsigned long long* out, const int* info) {
                        unsigned long long t0, t;
                        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
                        t = t0;
                        while (t - t0 < (unsigned long long) info[1]) {
                            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
                        }
                        if (threadIdx.x == 0) out[info[0]] = t;
                    }
                    """);

    /** Spin of the stamp before a replay: longer than the host needs to enqueue the replay. */
    private static final int STAMP_SPIN_NS = 300_000;

    /**
     * The median time on the device per kernel of {@code graph}'s replays, in microseconds: from the end of a stamp
     * launched before the replay to the start of one launched after it, over {@code rounds} replays.
     */
    static double deviceMicrosPerKernel(
            GraphRuntime runtime, GpuStream stream, Graph graph, int k, int rounds, Buffer stamps) {
        Kernel stamp = runtime.compile(STAMP);
        LaunchDims one = LaunchDims.linear(1, 32);
        double[] spans = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            stream.launch(stamp, one, KernelArgs.of(stamps).info(0, STAMP_SPIN_NS));
            graph.replay();
            stream.launch(stamp, one, KernelArgs.of(stamps).info(1, 0));
            int[] words = stream.readInts(stamps);
            long before = (words[0] & 0xFFFF_FFFFL) | ((long) words[1] << 32);
            long after = (words[2] & 0xFFFF_FFFFL) | ((long) words[3] << 32);
            spans[r] = (after - before) / 1e3 / k;
        }
        return DecodeBench.median(spans);
    }

    /** One row's medians, microseconds per kernel. */
    record Row(
            int elements,
            int launches,
            double eager,
            double eagerPdl,
            double replay,
            double replayPdl,
            double deviceReplay,
            double deviceReplayPdl,
            boolean exact) {
        String markdown() {
            return String.format(
                    "| %s x %d | %.3f | %.3f | %.3f | %.3f | %.2fx | %.3f | %.3f | %s |",
                    DecodeBench.size(elements),
                    launches,
                    eager,
                    eagerPdl,
                    replay,
                    replayPdl,
                    replayPdl / replay,
                    deviceReplay,
                    deviceReplayPdl,
                    exact ? "exact" : "FAILED");
        }

        String summary(String backend, boolean declared) {
            return String.format(
                    "summary: backend=%s row=%dx%d declared=%b eager=%.3f eager_pdl=%.3f replay=%.3f replay_pdl=%.3f"
                            + " device_replay=%.3f device_replay_pdl=%.3f",
                    backend,
                    elements,
                    launches,
                    declared,
                    eager,
                    eagerPdl,
                    replay,
                    replayPdl,
                    deviceReplay,
                    deviceReplayPdl);
        }
    }

    private DependentLaunchBench() {}

    private static Graph chain(GpuStream stream, Kernel kernel, LaunchDims dims, KernelArgs args, int k) {
        return DecodeBench.captureChain(stream, kernel, dims, args, k);
    }

    private static double timed(GpuStream stream, Runnable work) {
        return timed(stream, work, null, 0);
    }

    /** As above; also puts the time until {@code work} returned (the submit) into {@code submits[at]} when given. */
    private static double timed(GpuStream stream, Runnable work, double[] submits, int at) {
        long t0 = System.nanoTime();
        work.run();
        long submitted = System.nanoTime();
        stream.synchronize();
        long t1 = System.nanoTime();
        if (submits != null && at >= 0) {
            submits[at] = (submitted - t0) / 1e3;
        }
        return (t1 - t0) / 1e3;
    }

    private static void eager(GpuStream stream, Kernel kernel, LaunchDims dims, KernelArgs args, int k) {
        for (int j = 0; j < k; j++) {
            stream.launch(kernel, dims, args);
        }
    }

    static Row measure(GraphRuntime runtime, GpuStream stream, int n, int k, int rounds) {
        Kernel plain = runtime.compile(DecodeBench.SAXPY);
        Kernel dependent = runtime.compile(SAXPY_DEPENDENT);
        DecodeBench.Inputs inputs = DecodeBench.Inputs.of(n);
        try (Buffer xs = stream.upload(inputs.x());
                Buffer ys = stream.upload(inputs.y0())) {
            LaunchDims dims = DecodeBench.dims(runtime, n);
            KernelArgs args = KernelArgs.of(xs, ys).info(n).infoFloat(2f);
            long kernels = 0;
            double[] eager = new double[rounds];
            double[] eagerPdl = new double[rounds];
            double[] replay = new double[rounds];
            double[] replayPdl = new double[rounds];
            double[] replaySubmit = new double[rounds];
            double[] replayPdlSubmit = new double[rounds];
            double deviceReplay = Double.NaN;
            double deviceReplayPdl = Double.NaN;
            try (Graph plainGraph = chain(stream, plain, dims, args, k);
                    Graph dependentGraph = chain(stream, dependent, dims, args, k)) {
                kernels += 2L * k; // each capture's warm-up pass ran the chain once
                for (int r = -3; r < rounds; r++) {
                    double e = timed(stream, () -> eager(stream, plain, dims, args, k));
                    double ep = timed(stream, () -> eager(stream, dependent, dims, args, k));
                    double g = timed(stream, plainGraph::replay, replaySubmit, r);
                    double gp = timed(stream, dependentGraph::replay, replayPdlSubmit, r);
                    kernels += 4L * k;
                    if (r >= 0) {
                        eager[r] = e / k;
                        eagerPdl[r] = ep / k;
                        replay[r] = g / k;
                        replayPdl[r] = gp / k;
                    }
                }
                if (runtime.backendName().equals("cuda")) {
                    try (Buffer stamps = stream.allocate(16)) {
                        deviceReplay = deviceMicrosPerKernel(runtime, stream, plainGraph, k, rounds, stamps);
                        deviceReplayPdl = deviceMicrosPerKernel(runtime, stream, dependentGraph, k, rounds, stamps);
                    }
                    kernels += 2L * k * rounds;
                }
            }
            System.out.printf(
                    "host: row=%dx%d replay_submit_us=%.2f replay_total_us=%.2f replay_pdl_submit_us=%.2f "
                            + "replay_pdl_total_us=%.2f device_replay_us=%.2f device_replay_pdl_us=%.2f%n",
                    n,
                    k,
                    DecodeBench.median(replaySubmit),
                    DecodeBench.median(replay) * k,
                    DecodeBench.median(replayPdlSubmit),
                    DecodeBench.median(replayPdl) * k,
                    deviceReplay * k,
                    deviceReplayPdl * k);
            boolean exact = DecodeBench.exact(stream.readFloats(ys), inputs.x(), inputs.y0(), kernels);
            return new Row(
                    n,
                    k,
                    DecodeBench.median(eager),
                    DecodeBench.median(eagerPdl),
                    DecodeBench.median(replay),
                    DecodeBench.median(replayPdl),
                    deviceReplay,
                    deviceReplayPdl,
                    exact);
        }
    }

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        List<int[]> rows =
                DecodeBench.rows(args, List.of(new int[] {1024, 1000}, new int[] {1024, 100}, new int[] {65536, 1000}));
        RuntimeOptions options = backend.isEmpty()
                ? RuntimeOptions.defaults()
                : RuntimeOptions.defaults().backend(backend);
        boolean allExact = true;
        List<String> summaries = new ArrayList<>();
        try (GraphRuntime runtime = GraphRT.open(options);
                GpuStream stream = runtime.openStream()) {
            boolean declared = runtime.capabilities().contains(Capability.PROGRAMMATIC_DEPENDENT_LAUNCH);
            System.out.println("device: " + runtime.device() + "; PROGRAMMATIC_DEPENDENT_LAUNCH "
                    + (declared ? "declared" : "not declared (the opted-in kernel runs as an ordinary launch)"));
            System.out.println("rounds: " + rounds + " interleaved (eager plain, eager opted-in, replay plain, replay "
                    + "opted-in), medians, us per kernel, wall time of submit + synchronize, after an untimed warm-up");
            System.out.println();
            System.out.println("| elements x launches | eager | eager, opted in | replay | replay, opted in "
                    + "| opted-in replay / replay | replay on the device | opted in, on the device | check |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            HostPathWarmup.warm(runtime, stream); // untimed: the JIT's warm-up of launch, replay and synchronize
            allExact &= measure(runtime, stream, 256, 1000, 12).exact(); // untimed: and of this bench's own code
            for (int[] row : rows) {
                Row result = measure(runtime, stream, row[0], row[1], rounds);
                allExact &= result.exact();
                System.out.println(result.markdown());
                summaries.add(result.summary(runtime.backendName(), declared));
            }
        }
        System.out.println();
        summaries.forEach(System.out::println);
        if (!allExact) {
            System.out.println("verification FAILED");
            System.exit(4);
        }
    }
}
