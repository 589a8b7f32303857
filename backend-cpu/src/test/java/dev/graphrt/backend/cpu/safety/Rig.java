package dev.graphrt.backend.cpu.safety;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.runtime.CoreRuntime;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/** A runtime over the fault-injecting cpu backend, the kit's kernels and a few host-controlled Java kernels. */
final class Rig implements AutoCloseable {
    static final int N = 1061;
    static final long BYTES = N * 4L;
    static final LaunchDims DIMS = LaunchDims.linear(N, 256);
    static final LaunchDims ONCE = LaunchDims.linear(1, 1);

    final FaultInjectingBackend backend;
    final CoreRuntime runtime;
    final Kernel addOne;
    final Kernel mulTwo;
    /** {@code dst[i] = info[1]} for i below {@code info[0]}. */
    final Kernel fill;

    Rig(RuntimeOptions options, Map<String, String> backendOptions) {
        this.backend = new FaultInjectingBackend(backendOptions);
        this.runtime = new CoreRuntime(backend, options);
        this.addOne = runtime.compile(KitKernels.ADD_ONE);
        this.mulTwo = runtime.compile(KitKernels.MUL_TWO);
        this.fill = runtime.compile(KernelSource.named("fill").java((args, from, to) -> {
            for (int i = from; i < Math.min(to, args.info(0)); i++) {
                args.buffer(0).setAtIndex(ValueLayout.JAVA_INT, i, args.info(1));
            }
        }));
    }

    Rig(RuntimeOptions options) {
        this(options, Map.of("cpu.threads", "2"));
    }

    Rig() {
        this(RuntimeOptions.defaults().waitTimeout(Duration.ofSeconds(10)));
    }

    /** A one-invocation Java kernel running {@code body} on the stream's worker. */
    Kernel hostKernel(String name, Runnable body) {
        JavaKernel kernel = (args, from, to) -> body.run();
        return runtime.compile(KernelSource.named(name).java(kernel));
    }

    static void launch(GpuStream stream, Kernel kernel, Buffer src, Buffer dst) {
        stream.launch(kernel, DIMS, KernelArgs.of(src, dst).info(N));
    }

    static void fill(GpuStream stream, Kernel fill, Buffer dst, int value) {
        stream.launch(fill, DIMS, KernelArgs.of(dst).info(N, value));
    }

    static int[] constant(int value) {
        int[] x = new int[N];
        Arrays.fill(x, value);
        return x;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        runtime.close();
    }
}
