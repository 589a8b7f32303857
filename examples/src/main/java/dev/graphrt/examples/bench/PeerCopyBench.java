package dev.graphrt.examples.bench;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.core.GraphRT;
import java.util.Arrays;
import java.util.List;

/**
 * {@code GpuStream.copy} between two devices (issue 19): one runtime per device, a buffer of {@code MiB} on each, and
 * the copy from device 0's buffer into device 1's issued on device 0's stream, timed over several copies (each
 * returns once it completed); the same on one device for reference. The copied words are checked exactly once.
 * Arguments: {@code backend MiB copies}; prints a markdown table with GB/s (10^9 bytes per second).
 */
public final class PeerCopyBench {
    private PeerCopyBench() {}

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "cuda";
        long mib = args.length > 1 ? Long.parseLong(args[1]) : 256;
        int copies = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        List<AvailableDevice> devices = MultiDeviceBench.devicesOf(backend, 2);
        int words = (int) (mib << 20 >> 2);
        int[] pattern = new int[words];
        for (int i = 0; i < words; i++) {
            pattern[i] = i * 31 + 7;
        }
        try (GraphRuntime zero = GraphRT.open(devices.get(0).options());
                GraphRuntime one = GraphRT.open(devices.get(1).options());
                GpuStream s0 = zero.openStream();
                GpuStream s1 = one.openStream();
                Buffer src = s0.upload(pattern);
                Buffer local = s0.allocate(mib << 20);
                Buffer remote = s1.allocate(mib << 20)) {
            s0.synchronize();
            s1.synchronize();
            s0.copy(src, remote);
            boolean exact = Arrays.equals(s1.readInts(remote), pattern);
            s0.copy(src, local);
            exact &= Arrays.equals(s0.readInts(local), pattern);
            double peer = gigabytesPerSecond(mib, copies, () -> s0.copy(src, remote), null);
            double same = gigabytesPerSecond(mib, copies, () -> s0.copy(src, local), s0);
            double back = gigabytesPerSecond(mib, copies, () -> s1.copy(remote, src), null);
            System.out.println("| copy of " + mib + " MiB | GB/s (median of " + copies + ") | exact |");
            System.out.println("|---|---|---|");
            System.out.printf(
                    "| device 0 → device 1 (on device 0's stream) | %.1f | %s |%n", peer, exact ? "exact" : "WRONG");
            System.out.printf("| device 1 → device 0 (on device 1's stream) | %.1f | |%n", back);
            System.out.printf("| within device 0 | %.1f | |%n", same);
            System.exit(exact ? 0 : 1);
        }
    }

    /** Median GB/s of {@code copies} copies; {@code sync} waits after each (a copy between runtimes already does). */
    private static double gigabytesPerSecond(long mib, int copies, Runnable copy, GpuStream sync) {
        double[] rates = new double[copies];
        copy.run(); // warm-up
        if (sync != null) {
            sync.synchronize();
        }
        for (int i = 0; i < copies; i++) {
            long start = System.nanoTime();
            copy.run();
            if (sync != null) {
                sync.synchronize();
            }
            rates[i] = (mib << 20) / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
        return DecodeBench.median(rates);
    }
}
