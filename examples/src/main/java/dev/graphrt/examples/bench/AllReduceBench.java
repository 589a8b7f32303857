package dev.graphrt.examples.bench;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.Collectives;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.core.GraphRT;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * All-reduce bandwidth through {@code Communicator.allReduce} (issue 33): one runtime per device of the backend (or
 * the first {@code ranks}), one communicator of them all ({@code Collectives.open}), and for each size a sum of
 * float32s from one buffer into another on every rank (out of place, as nccl-tests' default), issued in one group, timed to the last rank's synchronize. Prints nccl-tests' figures:
 * the algorithm bandwidth (bytes / time) and the bus bandwidth (times {@code 2 (n - 1) / n}, what each link carries),
 * beside the plain C program's ({@code examples/src/main/native/nccl_allreduce_floor.cu}, its output file named by
 * {@code -Dbench.ncclFloor}) from the same job. Each size's result is checked exactly on every rank (small integers
 * as floats, so the sum is exact). Arguments: {@code backend ranks rounds MiB...}.
 */
public final class AllReduceBench {
    private AllReduceBench() {}

    public static void main(String[] args) throws IOException {
        String backend = args.length > 0 ? args[0] : "cuda";
        int wanted = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        List<Long> sizesMib = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            sizesMib.add(Long.parseLong(args[i]));
        }
        if (sizesMib.isEmpty()) {
            sizesMib.addAll(List.of(8L, 32L, 128L, 512L, 1024L));
        }
        List<AvailableDevice> devices = MultiDeviceBench.devicesOf(backend, 1);
        int n = wanted <= 0 ? devices.size() : Math.min(wanted, devices.size());
        Map<Long, Double> floor = readFloor(System.getProperty("bench.ncclFloor"));
        List<GraphRuntime> runtimes = new ArrayList<>();
        List<GpuStream> streams = new ArrayList<>();
        boolean exact = true;
        try {
            for (int r = 0; r < n; r++) {
                runtimes.add(GraphRT.open(devices.get(r).options()));
                streams.add(runtimes.get(r).openStream());
            }
            Collectives collectives = runtimes.getFirst().collectives();
            List<Communicator> ranks = collectives.open(streams);
            System.out.println(
                    "ranks: " + n + " (" + backend + ", "
                            + devices.getFirst().device().name() + "); rounds: " + rounds
                            + " after 1,000 untimed at the first size and 50 at each other; medians; GB/s are 10^9 bytes a second; busbw = algbw * 2 (n - 1) / n");
            System.out.println();
            System.out.println(
                    "| size | GraphRT µs | algbw GB/s | busbw GB/s | NCCL C µs | GraphRT / NCCL time | check |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (long mib : sizesMib) {
                long bytes = mib << 20;
                int words = (int) (bytes / 4);
                List<Buffer> buffers = new ArrayList<>();
                List<Buffer> sums = new ArrayList<>();
                try {
                    for (int r = 0; r < n; r++) {
                        float[] data = new float[words];
                        for (int i = 0; i < words; i++) {
                            data[i] = (i % 1024) + r;
                        }
                        buffers.add(streams.get(r).upload(data));
                        sums.add(streams.get(r).allocate(bytes));
                    }
                    Runnable once = () -> {
                        collectives.group(() -> {
                            for (int r = 0; r < n; r++) {
                                ranks.get(r).allReduce(buffers.get(r), sums.get(r), ReduceOp.SUM, ElementType.FLOAT32);
                            }
                        });
                        streams.forEach(GpuStream::synchronize);
                    };
                    once.run(); // the checked pass: sum over ranks of (i % 1024) + r
                    for (int r = 0; r < n; r++) {
                        float[] got = streams.get(r).readFloats(sums.get(r));
                        for (int i = 0; i < words && exact; i += 997) {
                            float want = n * (float) (i % 1024) + n * (n - 1) / 2f;
                            exact = got[i] == want;
                        }
                    }
                    // untimed: many at the first size, so the JIT has compiled the path before anything is timed
                    int untimed = mib == sizesMib.getFirst() ? Integer.getInteger("bench.warmup", 1000) : 50;
                    for (int w = 0; w < untimed; w++) {
                        once.run();
                    }
                    double[] micros = new double[rounds];
                    for (int i = 0; i < rounds; i++) {
                        long t0 = System.nanoTime();
                        once.run();
                        micros[i] = (System.nanoTime() - t0) / 1e3;
                    }
                    double us = DecodeBench.median(micros);
                    double algbw = bytes / (us / 1e6) / 1e9;
                    double busbw = algbw * 2.0 * (n - 1) / n;
                    Double c = floor.get(bytes);
                    System.out.printf(
                            "| %d MiB | %.1f | %.1f | %.1f | %s | %s | %s |%n",
                            mib,
                            us,
                            algbw,
                            busbw,
                            c == null ? "-" : String.format("%.1f", c),
                            c == null ? "-" : String.format("%.3f", us / c),
                            exact ? "exact" : "WRONG");
                    System.out.printf(
                            "summary: backend=%s ranks=%d bytes=%d graphrt_us=%.1f nccl_us=%s busbw_gbs=%.1f"
                                    + " nccl_over_graphrt_bandwidth=%s%n",
                            backend,
                            n,
                            bytes,
                            us,
                            c == null ? "NaN" : String.format("%.1f", c),
                            busbw,
                            c == null ? "NaN" : String.format("%.3f", c / us));
                } finally {
                    buffers.forEach(Buffer::close);
                    sums.forEach(Buffer::close);
                }
            }
            ranks.forEach(Communicator::close);
        } finally {
            for (GpuStream s : streams) {
                s.close();
            }
            for (GraphRuntime r : runtimes) {
                r.close();
            }
        }
        System.exit(exact ? 0 : 1);
    }

    /** The C program's lines {@code bytes microseconds}. */
    private static Map<Long, Double> readFloor(String file) throws IOException {
        Map<Long, Double> rows = new HashMap<>();
        if (file == null || !Files.exists(Path.of(file))) {
            return rows;
        }
        for (String line : Files.readAllLines(Path.of(file))) {
            String[] cells = line.strip().split("\\s+");
            if (cells.length == 2 && cells[0].matches("\\d+")) {
                rows.put(Long.parseLong(cells[0]), Double.parseDouble(cells[1]));
            }
        }
        return rows;
    }
}
