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
 * one line per row: {@code summary: backend=B row=NxK declared=D eager=E eager_pdl=P replay=G replay_pdl=Q}.
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

    /** One row's medians, microseconds per kernel. */
    record Row(
            int elements, int launches, double eager, double eagerPdl, double replay, double replayPdl, boolean exact) {
        String markdown() {
            return String.format(
                    "| %s x %d | %.3f | %.3f | %.3f | %.3f | %.2fx | %s |",
                    DecodeBench.size(elements),
                    launches,
                    eager,
                    eagerPdl,
                    replay,
                    replayPdl,
                    replayPdl / replay,
                    exact ? "exact" : "FAILED");
        }

        String summary(String backend, boolean declared) {
            return String.format(
                    "summary: backend=%s row=%dx%d declared=%b eager=%.3f eager_pdl=%.3f replay=%.3f replay_pdl=%.3f",
                    backend, elements, launches, declared, eager, eagerPdl, replay, replayPdl);
        }
    }

    private DependentLaunchBench() {}

    private static Graph chain(GpuStream stream, Kernel kernel, LaunchDims dims, KernelArgs args, int k) {
        return DecodeBench.captureChain(stream, kernel, dims, args, k);
    }

    private static double timed(GpuStream stream, Runnable work) {
        long t0 = System.nanoTime();
        work.run();
        stream.synchronize();
        return (System.nanoTime() - t0) / 1e3;
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
            try (Graph plainGraph = chain(stream, plain, dims, args, k);
                    Graph dependentGraph = chain(stream, dependent, dims, args, k)) {
                kernels += 2L * k; // each capture's warm-up pass ran the chain once
                for (int r = -3; r < rounds; r++) {
                    double e = timed(stream, () -> eager(stream, plain, dims, args, k));
                    double ep = timed(stream, () -> eager(stream, dependent, dims, args, k));
                    double g = timed(stream, plainGraph::replay);
                    double gp = timed(stream, dependentGraph::replay);
                    kernels += 4L * k;
                    if (r >= 0) {
                        eager[r] = e / k;
                        eagerPdl[r] = ep / k;
                        replay[r] = g / k;
                        replayPdl[r] = gp / k;
                    }
                }
            }
            boolean exact = DecodeBench.exact(stream.readFloats(ys), inputs.x(), inputs.y0(), kernels);
            return new Row(
                    n,
                    k,
                    DecodeBench.median(eager),
                    DecodeBench.median(eagerPdl),
                    DecodeBench.median(replay),
                    DecodeBench.median(replayPdl),
                    exact);
        }
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
            rows = List.of(new int[] {1024, 1000}, new int[] {1024, 100}, new int[] {65536, 1000});
        }
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
                    + "| opted-in replay / replay | check |");
            System.out.println("|---|---|---|---|---|---|---|");
            allExact &= measure(runtime, stream, 256, 1000, 12).exact(); // untimed: the JIT's warm-up
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
