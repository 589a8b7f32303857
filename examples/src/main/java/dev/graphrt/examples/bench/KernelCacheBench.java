package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import dev.graphrt.examples.DecodeLoopDemo;
import java.util.Arrays;
import java.util.List;

/**
 * What a process pays to open a runtime and compile the demo's kernels (the demo's layer and the benchmark's saxpy),
 * with the disk kernel cache in a given folder or off: run it once on an empty folder (cold), then again (warm).
 * Prints one line: {@code backend cache open_ms compile_ms total_ms}, after checking the layer kernel's result
 * exactly (a cached image must compute what a compiled one does). Each run is its own process, so nothing but
 * the disk cache carries over. Arguments: {@code backend folder|off}.
 */
public final class KernelCacheBench {
    /** The backend option that places the cache (the driver layer's {@code KernelImageCache.OPTION}). */
    private static final String CACHE_OPTION = "kernelCache";

    private static final List<KernelSource> KERNELS = List.of(DecodeLoopDemo.LAYER, DecodeBench.SAXPY);

    private KernelCacheBench() {}

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "cuda";
        String cache = args.length > 1 ? args[1] : "off";
        long start = System.nanoTime();
        try (GraphRuntime runtime =
                GraphRT.open(RuntimeOptions.defaults().backend(backend).backendOption(CACHE_OPTION, cache))) {
            long opened = System.nanoTime();
            List<Kernel> kernels = KERNELS.stream().map(runtime::compile).toList();
            long compiled = System.nanoTime();
            checkLayer(runtime, kernels.get(0));
            System.out.printf(
                    "%s %s open_ms %.1f compile_ms %.1f total_ms %.1f%n",
                    backend,
                    cache.equals("off") ? "off" : "on",
                    (opened - start) / 1e6,
                    (compiled - opened) / 1e6,
                    (compiled - start) / 1e6);
        }
    }

    /** The layer kernel, however it was obtained (compiled or from the cache), computes y = 3x - 1 exactly. */
    private static void checkLayer(GraphRuntime runtime, Kernel layer) {
        int n = 1000;
        float[] x = new float[n];
        float[] want = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i % 13 - 6;
            want[i] = x[i] * 3f + -1f;
        }
        try (GpuStream stream = runtime.openStream();
                Buffer in = stream.upload(x);
                Buffer out = stream.allocate(n * 4L)) {
            stream.launch(
                    layer,
                    LaunchDims.linear(n, 256),
                    KernelArgs.of(in, out).info(n).infoFloat(3f).infoFloat(-1f));
            if (!Arrays.equals(stream.readFloats(out), want)) {
                throw new AssertionError(
                        "the layer kernel computed a wrong result (cache " + runtime.backendName() + ")");
            }
        }
    }
}
