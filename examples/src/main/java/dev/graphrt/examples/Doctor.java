package dev.graphrt.examples;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import dev.graphrt.examples.bench.DecodeBench;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What to run first when a backend is missing: every provider with its probe result and reason, every device
 * ({@code GraphRT.devices()}), then for each
 * available backend its device, capabilities and a short self-test (a capture of 16 dependent launches, a replay and
 * an exact check against plain Java). Prints one line per finding; exits 1 when a self-test fails. Arguments:
 * backend names to test (default: every available one).
 */
public final class Doctor {
    private static final int N = 4096;
    private static final int LAUNCHES = 16;

    private Doctor() {}

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out) ? 0 : 1);
    }

    /** Prints the report to {@code out}; returns whether every self-test that ran passed. */
    static boolean run(List<String> only, PrintStream out) {
        List<String> available = new ArrayList<>();
        out.println("providers (name, priority, probe result):");
        for (String line : GraphRT.describeProviders()) {
            out.println("  " + line);
            String name = line.split(" ", 2)[0];
            if (line.contains(": available") && (only.isEmpty() || only.contains(name))) {
                available.add(name);
            }
        }
        out.println("devices (backend:ordinal, name, driver, memory, units, graphs; open one with "
                + "RuntimeOptions.device(backend, ordinal)):");
        for (AvailableDevice device : GraphRT.devices()) {
            out.println("  " + device + " declares " + new TreeSet<>(device.capabilities()));
        }
        boolean allPassed = true;
        for (String backend : available) {
            try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend))) {
                out.println(backend + ": " + runtime.device());
                out.println(backend + ": declares " + new TreeSet<>(runtime.capabilities()) + ", graphs "
                        + runtime.graphKind());
                String verdict = selfTest(runtime);
                allPassed &= verdict.startsWith("OK");
                out.println(backend + ": self-test " + verdict);
            } catch (RuntimeException failure) {
                allPassed = false;
                out.println(backend + ": could not be opened or tested: " + failure);
            }
        }
        return allPassed;
    }

    /** Captures LAUNCHES dependent saxpy launches (y = 2x + y), replays them twice and checks y exactly. */
    private static String selfTest(GraphRuntime runtime) {
        long start = System.nanoTime();
        float[] x = new float[N];
        float[] y0 = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = i % 7;
            y0[i] = i % 5;
        }
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        LaunchDims dims = LaunchDims.linear(N, 256);
        try (GpuStream stream = runtime.openStream();
                Buffer xs = stream.upload(x);
                Buffer ys = stream.upload(y0);
                Graph graph = stream.capture(CaptureOptions.defaults().warmups(0), s -> {
                    for (int k = 0; k < LAUNCHES; k++) {
                        s.launch(saxpy, dims, KernelArgs.of(xs, ys).info(N).infoFloat(2f));
                    }
                })) {
            graph.replay();
            graph.replay();
            float[] y = stream.readFloats(ys);
            for (int i = 0; i < N; i++) {
                float want = y0[i];
                for (int k = 0; k < 2 * LAUNCHES; k++) {
                    want = want + 2f * x[i];
                }
                if (y[i] != want) {
                    return "FAILED: element " + i + " is " + y[i] + ", plain Java gives " + want;
                }
            }
        }
        return String.format(
                "OK (%d launches captured, replayed twice, %d results exact, %.1f ms)",
                LAUNCHES, N, (System.nanoTime() - start) / 1e6);
    }
}
