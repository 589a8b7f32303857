package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.core.GraphRT;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What changing a graph costs (issue 15), on DecodeBench's chain of K dependent saxpy launches over 1,024 floats:
 * per K, medians over the rounds of
 * <ul>
 *   <li>capture: {@code stream.capture} with no warm-up (prepare, record, instantiate, upload), the graph closed
 *       after each round;</li>
 *   <li>update: {@code graph.update} of that graph with another scale (no warm-up, same shape);</li>
 *   <li>rebind 1: {@code graph.rebind} of the input only the first launch reads;</li>
 *   <li>rebind all: {@code graph.rebind} of the output every launch writes.</li>
 * </ul>
 * Before the timed rounds, {@code -Dbench.warmup} rounds (default 2,000) run untimed, so the JIT has compiled the
 * path, as in a long-running service (after 100, as before, the H200 showed the capture path still partly
 * interpreted: 1.98x the FFM floor at 100 launches against 1.31x after 2,000); the first rebind of each graph (which lists the driver graph's nodes once)
 * is not timed. The last round's graph is replayed and checked exactly. On cuda and hip (over cuda) each round is
 * followed by the same round on {@link CudaFloor.Changes}, plain FFM on the CUDA driver in this JVM (issue 29), and
 * every figure is given over that floor's median; with {@code -Dbench.cFloor=FILE} (the output of
 * {@code examples/src/main/native/capture_floor.cu}, run just before in the same job) also over C's. Ends with
 * {@code summary:} lines. Arguments: {@code backend rounds K...} (default {@code cuda 15 100 1000}).
 */
public final class CaptureBench {
    private static final int N = 1024;

    private CaptureBench() {}

    record Row(
            int launches,
            double capture,
            double update,
            double rebindOne,
            double rebindAll,
            boolean exact,
            double[] floor) {
        /** The FFM floor's {capture, update, rebind 1} medians, or {@code null} when none ran. */
        double floorOf(int column) {
            return floor == null ? Double.NaN : floor[column];
        }
    }

    public static void main(String[] args) throws Throwable {
        String backend = args.length > 0 ? args[0] : "cuda";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        List<Integer> ks = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            ks.add(Integer.parseInt(args[i]));
        }
        if (ks.isEmpty()) {
            ks = List.of(100, 1000);
        }
        Map<Integer, double[]> floor = readFloor(System.getProperty("bench.cFloor"));
        boolean ffm = (backend.equals("cuda") || backend.equals("hip")) && !Boolean.getBoolean("bench.noFfmFloor");
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream stream = runtime.openStream();
                CudaFloor cuda = ffm
                        ? new CudaFloor(DecodeBench.SAXPY.text(Dialect.CUDA_C).orElseThrow(), "saxpy")
                        : null) {
            System.out.println("device: " + runtime.device());
            System.out.println("rounds: " + rounds + " after " + Integer.getInteger("bench.warmup", 2000)
                    + " untimed, medians in microseconds; 1,024 floats; "
                    + "capture with no warm-up; FFM floor: " + (ffm ? "CudaFloor, rounds interleaved" : "none")
                    + "; C floor: " + (floor.isEmpty() ? "none" : "capture_floor.cu, same job"));
            System.out.println();
            System.out.println("| launches | capture+instantiate us (/FFM, /C) | update us (/FFM, /C) | capture/update "
                    + "| rebind 1 node us (/FFM, /C) | rebind all nodes us (/C) | FFM floor capture, update, rebind 1 "
                    + "us | check |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            boolean allExact = true;
            List<Row> measured = new ArrayList<>();
            for (int k : ks) {
                Row row = measure(runtime, stream, cuda, k, rounds);
                measured.add(row);
                allExact &= row.exact();
                double[] c = floor.get(k);
                System.out.printf(
                        "| %d | %s | %s | %.1fx | %s | %s | %s | %s |%n",
                        k,
                        ratio(row.capture(), row.floorOf(0), c, 0),
                        ratio(row.update(), row.floorOf(1), c, 1),
                        row.capture() / row.update(),
                        ratio(row.rebindOne(), row.floorOf(2), c, 2),
                        ratio(row.rebindAll(), Double.NaN, c, 3),
                        row.floor() == null
                                ? "-"
                                : String.format("%.1f, %.1f, %.2f", row.floor()[0], row.floor()[1], row.floor()[2]),
                        row.exact() ? "exact" : "FAILED");
            }
            System.out.println();
            System.out.println("Where a capture's time goes (medians, us): prepare() | beginCapture() | the K launches "
                    + "| endCapture() (instantiate and upload included)");
            System.out.println();
            System.out.println("| launches | prepare | beginCapture | launches | endCapture | C record only (begin, "
                    + "launches, end) |");
            System.out.println("|---|---|---|---|---|---|");
            for (int k : ks) {
                double[] p = phases(runtime, stream, k, rounds);
                double[] c = floor.get(k);
                System.out.printf(
                        "| %d | %.1f | %.1f | %.1f | %.1f | %s |%n",
                        k, p[0], p[1], p[2], p[3], c == null ? "-" : String.format("%.1f", c[4]));
            }
            System.out.println();
            System.out.println(
                    "Fork/join (issue 16): 4 independent chains of 250 launches (1,024 floats each), captured on "
                            + "4 forked streams into one graph, beside the same 1,000 launches captured on one stream; "
                            + "replay + synchronize, medians, us");
            System.out.println();
            System.out.println(
                    "| fork/join graph (4 x 250) | one-stream graph (1000) | ratio (target <= 0.5) | check |");
            System.out.println("|---|---|---|---|");
            double[] fj = forkJoin(runtime, stream, rounds);
            allExact &= fj[2] == 1;
            System.out.printf(
                    "| %.1f | %.1f | %.2f | %s |%n", fj[0], fj[1], fj[0] / fj[1], fj[2] == 1 ? "exact" : "FAILED");
            System.out.println();
            for (Row row : measured) {
                double[] c = floor.get(row.launches());
                System.out.printf(
                        "summary: backend=%s launches=%d capture_over_ffm=%.3f capture_over_c=%.3f "
                                + "update_over_ffm=%.3f update_over_c=%.3f rebind1_over_ffm=%.3f rebind1_over_c=%.3f%n",
                        backend,
                        row.launches(),
                        row.capture() / row.floorOf(0),
                        over(row.capture(), c, 0),
                        row.update() / row.floorOf(1),
                        over(row.update(), c, 1),
                        row.rebindOne() / row.floorOf(2),
                        over(row.rebindOne(), c, 2));
            }
            if (!allExact) {
                System.exit(1);
            }
        }
    }

    /** {@code micros} with its ratios over the FFM floor (NaN: none) and over C's column (null: none). */
    private static String ratio(double micros, double ffm, double[] c, int column) {
        List<String> over = new ArrayList<>();
        if (!Double.isNaN(ffm)) {
            over.add(String.format("%.2fx", micros / ffm));
        }
        if (c != null) {
            over.add(String.format("%.2fx C", micros / c[column]));
        }
        return String.format("%.1f", micros) + (over.isEmpty() ? "" : " (" + String.join(", ", over) + ")");
    }

    private static double over(double micros, double[] c, int column) {
        return c == null ? Double.NaN : micros / c[column];
    }

    static Row measure(GraphRuntime runtime, GpuStream stream, CudaFloor cuda, int k, int rounds) throws Throwable {
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        DecodeBench.Inputs inputs = DecodeBench.Inputs.of(N);
        float[] x = inputs.x();
        float[] y0 = inputs.y0();
        LaunchDims dims = LaunchDims.linear(N, 256);
        List<Double> capture = new ArrayList<>();
        List<Double> update = new ArrayList<>();
        List<Double> rebindOne = new ArrayList<>();
        List<Double> rebindAll = new ArrayList<>();
        List<List<Double>> ffm = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        boolean exact = true;
        try (CudaFloor.Changes floor = cuda == null ? null : cuda.new Changes(x, y0, 2f, 3f);
                Buffer input = stream.upload(x);
                Buffer input2 = stream.upload(x);
                Buffer xs = stream.upload(x);
                Buffer ys = stream.upload(y0);
                Buffer ys2 = stream.upload(y0)) {
            CaptureOptions once = CaptureOptions.defaults().warmups(0);
            int warmup = Integer.getInteger("bench.warmup", 2000);
            for (int r = -warmup; r < rounds; r++) {
                stream.synchronize();
                long t0 = System.nanoTime();
                Graph graph = stream.capture(once, chain(saxpy, dims, k, 2f, input, xs, ys));
                long t1 = System.nanoTime();
                UpdateResult result = graph.update(once, chain(saxpy, dims, k, 3f, input, xs, ys));
                long t2 = System.nanoTime();
                if (!result.applied()) {
                    throw new IllegalStateException("update rejected: " + result);
                }
                graph.rebind(input, input2); // the first rebind of a graph also lists its nodes: not timed
                graph.rebind(input2, input);
                long t2b = System.nanoTime();
                graph.rebind(input, input2);
                long t3 = System.nanoTime();
                graph.rebind(ys, ys2);
                long t4 = System.nanoTime();
                if (r == rounds - 1) { // y2 += 3x per launch, the first launch reading input2 (also x)
                    stream.write(ys2, y0);
                    graph.replay();
                    float[] y = stream.readFloats(ys2);
                    for (int i = 0; i < N && exact; i++) {
                        float want = y0[i];
                        for (int j = 0; j < k; j++) {
                            want = want + 3f * x[i];
                        }
                        exact = y[i] == want;
                    }
                }
                graph.rebind(ys2, ys);
                graph.rebind(input2, input);
                graph.close();
                long[] f = floor == null ? null : floor.round(k, r == rounds - 1, x, y0, 3f);
                if (floor != null && f == null) {
                    exact = false; // the floor's changed graph computed something else
                }
                if (r >= 0) {
                    capture.add((t1 - t0) / 1e3);
                    update.add((t2 - t1) / 1e3);
                    rebindOne.add((t3 - t2b) / 1e3);
                    rebindAll.add((t4 - t3) / 1e3);
                    if (f != null) {
                        for (int i = 0; i < 3; i++) {
                            ffm.get(i).add(f[i] / 1e3);
                        }
                    }
                }
            }
            stream.synchronize();
        }
        return new Row(
                k,
                median(capture),
                median(update),
                median(rebindOne),
                median(rebindAll),
                exact,
                cuda == null
                        ? null
                        : ffm.stream().mapToDouble(CaptureBench::median).toArray());
    }

    /**
     * Replays of a fork/join graph (4 chains on 4 streams) and of the same launches on one stream, interleaved;
     * returns {fork/join median, one-stream median, 1 if every chain's result is exact}.
     */
    static double[] forkJoin(GraphRuntime runtime, GpuStream stream, int rounds) {
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        int chains = 4;
        int length = 250;
        float[] x = new float[N];
        float[] y0 = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = i % 5;
            y0[i] = i % 3;
        }
        LaunchDims dims = LaunchDims.linear(N, 256);
        List<Buffer> xs = new ArrayList<>();
        List<Buffer> ys = new ArrayList<>();
        List<GpuStream> forks = new ArrayList<>();
        try {
            for (int c = 0; c < chains; c++) {
                xs.add(stream.upload(x));
                ys.add(stream.upload(y0));
            }
            for (int c = 1; c < chains; c++) {
                forks.add(runtime.openStream());
            }
            Graph serial = stream.capture(CaptureOptions.defaults().warmups(0), s -> {
                for (int c = 0; c < chains; c++) {
                    chain(saxpy, dims, length, 2f, xs.get(c), xs.get(c), ys.get(c))
                            .accept(s);
                }
            });
            Graph parallel = stream.capture(CaptureOptions.defaults().warmups(0), s -> {
                var fork = s.record();
                for (GpuStream f : forks) {
                    f.waitFor(fork);
                }
                chain(saxpy, dims, length, 2f, xs.get(0), xs.get(0), ys.get(0)).accept(s);
                for (int c = 1; c < chains; c++) {
                    chain(saxpy, dims, length, 2f, xs.get(c), xs.get(c), ys.get(c))
                            .accept(forks.get(c - 1));
                }
                for (GpuStream f : forks) {
                    s.waitFor(f.record());
                }
            });
            List<Double> forked = new ArrayList<>();
            List<Double> single = new ArrayList<>();
            int replays = 0;
            int warmup = Integer.getInteger("bench.warmup", 2000);
            for (int r = -warmup; r < rounds; r++) {
                stream.synchronize();
                long t0 = System.nanoTime();
                parallel.replay();
                stream.synchronize();
                long t1 = System.nanoTime();
                serial.replay();
                stream.synchronize();
                long t2 = System.nanoTime();
                replays += 2;
                if (r >= 0) {
                    forked.add((t1 - t0) / 1e3);
                    single.add((t2 - t1) / 1e3);
                }
            }
            boolean exact = true;
            for (int c = 0; c < chains && exact; c++) {
                float[] y = stream.readFloats(ys.get(c));
                for (int i = 0; i < N && exact; i++) {
                    float want = y0[i];
                    for (int k = 0; k < replays * length; k++) {
                        want = want + 2f * x[i];
                    }
                    exact = y[i] == want;
                }
            }
            parallel.close();
            serial.close();
            return new double[] {median(forked), median(single), exact ? 1 : 0};
        } finally {
            forks.forEach(GpuStream::close);
            xs.forEach(Buffer::close);
            ys.forEach(Buffer::close);
        }
    }

    /** The capture's phases, each timed on its own through the stream's explicit lifecycle calls. */
    static double[] phases(GraphRuntime runtime, GpuStream stream, int k, int rounds) {
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        float[] x = new float[N];
        LaunchDims dims = LaunchDims.linear(N, 256);
        List<List<Double>> times = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (Buffer xs = stream.upload(x);
                Buffer ys = stream.upload(x)) {
            Consumer<GpuStream> step = chain(saxpy, dims, k, 2f, xs, xs, ys);
            int warmup = Integer.getInteger("bench.warmup", 2000);
            for (int r = -warmup; r < rounds; r++) {
                stream.synchronize();
                long t0 = System.nanoTime();
                stream.prepare();
                long t1 = System.nanoTime();
                stream.beginCapture(CaptureOptions.defaults());
                long t2 = System.nanoTime();
                step.accept(stream);
                long t3 = System.nanoTime();
                Graph graph = stream.endCapture();
                long t4 = System.nanoTime();
                graph.close();
                if (r >= 0) {
                    times.get(0).add((t1 - t0) / 1e3);
                    times.get(1).add((t2 - t1) / 1e3);
                    times.get(2).add((t3 - t2) / 1e3);
                    times.get(3).add((t4 - t3) / 1e3);
                }
            }
            stream.synchronize();
        }
        return times.stream().mapToDouble(CaptureBench::median).toArray();
    }

    /** K saxpy launches in a chain, the first reading {@code first}, the others {@code x}, all adding into y. */
    private static Consumer<GpuStream> chain(
            Kernel saxpy, LaunchDims dims, int k, float scale, Buffer first, Buffer x, Buffer y) {
        return s -> {
            for (int j = 0; j < k; j++) {
                s.launch(
                        saxpy,
                        dims,
                        KernelArgs.of(j == 0 ? first : x, y).info(N).infoFloat(scale));
            }
        };
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** capture_floor.cu's table: launches to {capture, update, rebind 1, rebind all}. */
    private static Map<Integer, double[]> readFloor(String file) throws IOException {
        Map<Integer, double[]> rows = new HashMap<>();
        if (file == null || !Files.exists(Path.of(file))) {
            return rows;
        }
        for (String line : Files.readAllLines(Path.of(file))) {
            String[] cells = line.split("\\|");
            if (cells.length >= 7 && cells[1].strip().matches("\\d+")) {
                rows.put(Integer.parseInt(cells[1].strip()), new double[] {
                    Double.parseDouble(cells[2].strip()),
                    Double.parseDouble(cells[3].strip()),
                    Double.parseDouble(cells[4].strip()),
                    Double.parseDouble(cells[5].strip()),
                    Double.parseDouble(cells[6].strip())
                });
            }
        }
        return rows;
    }
}
