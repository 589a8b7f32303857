package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;

/**
 * Runs each host path a benchmark times (an eager launch, a replay, a synchronize) often enough that the JIT has
 * compiled it before the first timed round, on a one-launch graph of 256 elements so that it costs a fraction of a
 * second. Why: a bench that replays a 1,000-launch graph 30 times calls {@code replay()} and {@code synchronize()} 30
 * times, so both run interpreted, their downcalls included, which adds 10-60 µs to every timed round on the H200
 * (measured against the device's own time of the graph, {@link DependentLaunchBench#STAMP}); a decode loop that
 * replays once a token is past that after its first few hundred tokens.
 */
public final class HostPathWarmup {
    /** Calls of each path: past the JIT's compile thresholds (about 10,000 calls for C2) with margin. */
    public static final int CALLS = 20_000;

    private HostPathWarmup() {}

    /** Warms launch, replay and synchronize on {@code stream} with {@link #CALLS} calls each; returns the kernels run. */
    public static long warm(GraphRuntime runtime, GpuStream stream) {
        Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
        DecodeBench.Inputs inputs = DecodeBench.Inputs.of(256);
        try (Buffer xs = stream.upload(inputs.x());
                Buffer ys = stream.upload(inputs.y0())) {
            LaunchDims dims = DecodeBench.dims(runtime, 256);
            KernelArgs args = KernelArgs.of(xs, ys).info(256).infoFloat(0f);
            long kernels = 0;
            try (Graph graph = DecodeBench.captureChain(stream, saxpy, dims, args, 1)) {
                for (int i = 0; i < CALLS; i++) {
                    stream.launch(saxpy, dims, args);
                    graph.replay();
                    stream.synchronize();
                    kernels += 2;
                }
            }
            return kernels;
        }
    }
}
