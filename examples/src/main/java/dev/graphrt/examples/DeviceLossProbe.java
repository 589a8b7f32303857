package dev.graphrt.examples;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;

/**
 * Runs a trapping kernel on a GPU backend in a process of its own (a trap can poison the whole process) and
 * prints what a user sees: the loss at the next sync, every later call failing fast, a quiet close, and what
 * a new runtime in the same process gets. Exit code 0 when the runtime was lost and contained as designed.
 * Usage: {@code DeviceLossProbe cuda|hip}
 */
public final class DeviceLossProbe {
    private static final String SIGNATURE = "(const unsigned int* src, unsigned int* dst, const unsigned int* info)";
    private static final KernelSource TRAP = KernelSource.named("trap_kernel")
            .cuda("extern \"C\" __global__ void " + "trap_kernel" + SIGNATURE
                    + " { if (blockIdx.x == 0 && threadIdx.x == 0) { __trap(); } }\n");
    private static final KernelSource ADD_ONE = KernelSource.named("add_one")
            .cuda("extern \"C\" __global__ void "
                    + "add_one" + SIGNATURE + " { unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; "
                    + "if (i < info[0]) { dst[i] = src[i] + 1u; } }\n");

    private DeviceLossProbe() {}

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "cuda";
        int n = 1024;
        boolean contained = true;
        GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
        GpuStream stream = runtime.openStream();
        Buffer in = stream.upload(new int[n]);
        Buffer out = stream.allocate(n * 4L);
        stream.launch(
                runtime.compile(TRAP),
                LaunchDims.linear(n, 256),
                KernelArgs.of(in, out).info(n));
        contained &= expectLost("synchronize after the trap", stream::synchronize);
        contained &= expectLost("a later allocate", () -> stream.allocate(64));
        contained &= expectLost("a later openStream", runtime::openStream);
        try {
            in.close();
            out.close();
            stream.close();
            runtime.close();
            System.out.println("close: completed quietly");
        } catch (RuntimeException failure) {
            System.out.println("close: threw " + failure);
            contained = false;
        }
        try (GraphRuntime next = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream s = next.openStream()) {
            int[] data = new int[n];
            java.util.Arrays.fill(data, 41);
            Buffer a = s.upload(data);
            Buffer b = s.allocate(n * 4L);
            s.launch(
                    next.compile(ADD_ONE),
                    LaunchDims.linear(n, 256),
                    KernelArgs.of(a, b).info(n));
            System.out.println("a new runtime in this process: works, first result " + s.readInts(b)[0]);
        } catch (RuntimeException failure) {
            System.out.println("a new runtime in this process: "
                    + failure.getClass().getSimpleName() + ": " + failure.getMessage());
        }
        System.out.println("summary: backend=" + backend + " lost_and_contained=" + contained);
        System.exit(contained ? 0 : 1);
    }

    private static boolean expectLost(String what, Runnable call) {
        try {
            call.run();
            System.out.println(what + ": no error (expected DeviceLostException)");
            return false;
        } catch (DeviceLostException lost) {
            System.out.println(what + ": DeviceLostException: " + lost.getMessage());
            return true;
        } catch (RuntimeException other) {
            System.out.println(what + ": " + other);
            return false;
        }
    }
}
