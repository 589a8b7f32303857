package dev.graphrt.examples.bench;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.core.GraphRT;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Several GPUs of one host, one runtime each (issue 19): per device a graph of K dependent saxpy launches over N
 * floats, replayed R times from one host thread per device. Each round times every device alone, then all of them
 * at once (threads released by one barrier; the wall time runs from the release to the last device's synchronize),
 * and checks every device's result exactly after each phase. The aggregate is the devices' kernels per second
 * together over one device's alone (the mean of the devices alone), so 2.00 on two devices is perfect scaling.
 * Arguments: {@code backend replays rounds rows...} (rows as {@code 1024x1000}); prints a markdown table.
 */
public final class MultiDeviceBench {

    private MultiDeviceBench() {}

    /** One device's runtime, stream, buffers and graph, and the host's copy of its inputs. */
    private record Device(
            int ordinal, GraphRuntime runtime, GpuStream stream, Buffer ys, Graph graph, float[] x, float[] y0)
            implements AutoCloseable {
        /** Resets y, replays the graph {@code replays} times, synchronizes; returns [start, end] in ns. */
        long[] run(int replays, CyclicBarrier start) throws InterruptedException, BrokenBarrierException {
            stream.write(ys, y0);
            stream.synchronize();
            if (start != null) {
                start.await();
            }
            long begin = System.nanoTime();
            for (int r = 0; r < replays; r++) {
                graph.replay();
            }
            stream.synchronize();
            return new long[] {begin, System.nanoTime()};
        }

        boolean exact(long kernels) {
            return DecodeBench.exact(stream.readFloats(ys), x, y0, kernels);
        }

        @Override
        public void close() {
            graph.close();
            stream.close();
            runtime.close();
        }
    }

    public static void main(String[] args) throws Exception {
        String backend = args.length > 0 ? args[0] : "cuda";
        int replays = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        List<String> rows =
                args.length > 3 ? List.of(args).subList(3, args.length) : List.of("1024x1000", "65536x1000");
        // 1 only to try the bench on a one-device machine
        List<AvailableDevice> devices = devicesOf(backend, Integer.getInteger("bench.minDevices", 2));
        System.out.println("devices: " + devices);
        System.out.println();
        System.out.println("| N x K | devices | alone µs/kernel (per device) | together µs/kernel (per device) "
                + "| aggregate vs one device | exact |");
        System.out.println("|---|---|---|---|---|---|");
        boolean allExact = true;
        for (String row : rows) {
            String[] nk = row.split("x");
            allExact &= measure(devices, Integer.parseInt(nk[0]), Integer.parseInt(nk[1]), replays, rounds);
        }
        System.exit(allExact ? 0 : 1);
    }

    /** The devices of {@code backend}, best first; exits 2, saying so, when there are fewer than {@code least}. */
    static List<AvailableDevice> devicesOf(String backend, int least) {
        List<AvailableDevice> devices = GraphRT.devices().stream()
                .filter(d -> d.backend().equals(backend))
                .toList();
        if (devices.size() < least) {
            System.out.println("needs at least " + least + " " + backend + " devices; found " + devices.size());
            System.exit(2);
        }
        return devices;
    }

    private static boolean measure(List<AvailableDevice> devices, int n, int k, int replays, int rounds)
            throws Exception {
        List<Device> opened = new ArrayList<>();
        try {
            for (AvailableDevice device : devices) {
                opened.add(open(device, n, k));
            }
            int count = opened.size();
            long kernels = (long) replays * k;
            boolean exact = true;
            double[][] alone = new double[count][rounds];
            double[] together = new double[rounds];
            for (Device device : opened) { // warm-up: one untimed phase each
                device.run(replays / 4 + 1, null);
            }
            for (int round = 0; round < rounds; round++) {
                for (int d = 0; d < count; d++) {
                    long[] span = opened.get(d).run(replays, null);
                    alone[d][round] = (span[1] - span[0]) / 1e3 / kernels;
                    exact &= opened.get(d).exact(kernels);
                }
                together[round] = together(opened, replays) / 1e3 / kernels;
                for (Device device : opened) {
                    exact &= device.exact(kernels);
                }
            }
            double aloneMean = 0;
            StringBuilder perDevice = new StringBuilder();
            for (int d = 0; d < count; d++) {
                double median = DecodeBench.median(alone[d]);
                aloneMean += median / count;
                perDevice.append(d == 0 ? "" : " / ").append(String.format("%.3f", median));
            }
            double both = DecodeBench.median(together);
            // together[] is the wall time per kernel of one device's share: the devices ran count shares at once
            double aggregate = count * aloneMean / both;
            System.out.printf(
                    "| %s x %d | %d | %s | %.3f | %.2fx | %s |%n",
                    DecodeBench.size(n), k, count, perDevice, both, aggregate, exact ? "exact" : "WRONG");
            return exact;
        } finally {
            for (Device device : opened) {
                device.close();
            }
        }
    }

    /** Every device replays at once, one platform thread each; returns the wall time in ns. */
    private static long together(List<Device> devices, int replays) throws Exception {
        CyclicBarrier start = new CyclicBarrier(devices.size());
        long[][] spans = new long[devices.size()][];
        Exception[] failures = new Exception[devices.size()];
        List<Thread> threads = new ArrayList<>();
        for (int d = 0; d < devices.size(); d++) {
            int index = d;
            threads.add(Thread.ofPlatform()
                    .name("device-" + devices.get(d).ordinal())
                    .start(() -> {
                        try {
                            spans[index] = devices.get(index).run(replays, start);
                        } catch (Exception failure) {
                            failures[index] = failure;
                            start.reset();
                        }
                    }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (Exception failure : failures) {
            if (failure != null) {
                throw failure;
            }
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (long[] span : spans) {
            first = Math.min(first, span[0]);
            last = Math.max(last, span[1]);
        }
        return last - first;
    }

    private static Device open(AvailableDevice device, int n, int k) {
        GraphRuntime runtime = GraphRT.open(device.options());
        GpuStream stream = runtime.openStream();
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        DecodeBench.Inputs inputs = DecodeBench.Inputs.of(n);
        Buffer xs = stream.upload(inputs.x());
        Buffer ys = stream.upload(inputs.y0());
        LaunchDims dims = DecodeBench.dims(runtime, n);
        Graph graph = DecodeBench.captureChain(
                stream, saxpy, dims, KernelArgs.of(xs, ys).info(n).infoFloat(2f), k);
        return new Device(device.ordinal(), runtime, stream, ys, graph, inputs.x(), inputs.y0());
    }
}
