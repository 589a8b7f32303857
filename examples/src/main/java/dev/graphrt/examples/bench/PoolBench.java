package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What graphs of 8 shapes cost in device memory (issue 17): one graph per bucket of 1K to 128K floats, each step 100
 * launches (copies and saxpys) through two temporaries it allocates and closes, captured as separate graphs, then into one
 * {@code GraphPool} largest bucket first, then smallest first. Cost = the runtime's in-use bytes after the captures
 * minus before (a stream synchronised, each set closed before the next), beside the largest graph alone. Every graph
 * is replayed once and its output checked exactly. Argument: {@code backend} (default {@code cpu}).
 */
public final class PoolBench {
    /** {@code y[i] = x[i]} for i below info[0]. */
    static final KernelSource COPY = KernelSource.named("copy")
            .cuda("""
                    extern "C" __global__ void copy(const float* x, float* y, const int* info) {
                        int i = blockIdx.x * blockDim.x + threadIdx.x;
                        if (i < info[0]) {
                            y[i] = x[i];
                        }
                    }
                    """)
            .wgsl("""
                    @group(0) @binding(0) var<storage, read_write> x: array<f32>;
                    @group(0) @binding(1) var<storage, read_write> y: array<f32>;
                    @group(0) @binding(2) var<storage, read_write> info: array<i32>;
                    @compute @workgroup_size(256)
                    fn copy(@builtin(global_invocation_id) id: vec3<u32>) {
                        let i = i32(id.x);
                        if (i < info[0]) {
                            y[i] = x[i];
                        }
                    }
                    """)
            .java(
                    (args, from, to) -> {
                        for (int i = from; i < Math.min(to, args.info(0)); i++) {
                            args.buffer(1)
                                    .setAtIndex(
                                            ValueLayout.JAVA_FLOAT,
                                            i,
                                            args.buffer(0).getAtIndex(ValueLayout.JAVA_FLOAT, i));
                        }
                    },
                    JavaParameters.buffersAndInfo(2));

    private PoolBench() {}

    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "cpu";
        int[] buckets = {1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17};
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream stream = runtime.openStream()) {
            Kernel saxpy = runtime.compile(DecodeBench.SAXPY);
            Kernel copy = runtime.compile(COPY);
            float[] x = new float[buckets[buckets.length - 1]];
            for (int i = 0; i < x.length; i++) {
                x[i] = i % 3;
            }
            try (Buffer in = stream.upload(x);
                    Buffer out = stream.upload(new float[x.length])) {
                long largest =
                        cost(runtime, stream, saxpy, copy, in, out, new int[] {buckets[buckets.length - 1]}, null);
                long separate = cost(runtime, stream, saxpy, copy, in, out, buckets, null);
                int[] descending = new int[buckets.length];
                for (int i = 0; i < buckets.length; i++) {
                    descending[i] = buckets[buckets.length - 1 - i];
                }
                long pooledLargestFirst;
                try (GraphPool pool = runtime.graphPool()) {
                    pooledLargestFirst = cost(runtime, stream, saxpy, copy, in, out, descending, pool);
                }
                long pooledSmallestFirst;
                try (GraphPool pool = runtime.graphPool()) {
                    pooledSmallestFirst = cost(runtime, stream, saxpy, copy, in, out, buckets, pool);
                }
                System.out.println("device: " + runtime.device());
                System.out.println("8 graphs, buckets 1K to 128K floats, 100 launches through 2 temporaries each; "
                        + "bytes in use after the captures minus before");
                System.out.println();
                System.out.println(
                        "| largest graph alone | 8 separate graphs | 8 in one pool, largest first | 8 in one pool, "
                                + "smallest first | pooled (largest first) / largest (target <= 1.25) |");
                System.out.println("|---|---|---|---|---|");
                System.out.printf(
                        "| %d B | %d B | %d B | %d B | %.2f |%n",
                        largest,
                        separate,
                        pooledLargestFirst,
                        pooledSmallestFirst,
                        (double) pooledLargestFirst / largest);
            }
        }
    }

    /** In-use bytes that capturing (and replaying, checked) one graph per size costs; the graphs are then closed. */
    private static long cost(
            GraphRuntime runtime,
            GpuStream stream,
            Kernel saxpy,
            Kernel copy,
            Buffer in,
            Buffer out,
            int[] sizes,
            GraphPool pool) {
        stream.synchronize();
        long before = runtime.memoryStats().inUseBytes();
        List<Graph> graphs = new ArrayList<>();
        CaptureOptions options = CaptureOptions.defaults().pool(pool);
        for (int n : sizes) {
            graphs.add(stream.capture(options, step(saxpy, copy, in, out, n)));
        }
        stream.synchronize();
        long after = runtime.memoryStats().inUseBytes();
        for (int i = 0; i < sizes.length; i++) {
            stream.write(out, new float[sizes[i]]);
            graphs.get(i).replay();
            float[] y = stream.readFloats(out);
            for (int j = 0; j < sizes[i]; j++) {
                float want = 98f * (j % 3); // t1 = 50 x, t2 = t1, out = t2 + 48 x
                if (y[j] != want) {
                    throw new IllegalStateException(
                            "graph of " + sizes[i] + " floats: element " + j + " is " + y[j] + ", want " + want);
                }
            }
        }
        graphs.forEach(Graph::close);
        stream.synchronize();
        return after - before;
    }

    /** 100 launches: t1 = x, t1 += x (49 times), t2 = t1, out = t2, out += x (48 times): out = 98 x. */
    private static Consumer<GpuStream> step(Kernel saxpy, Kernel copy, Buffer in, Buffer out, int n) {
        return s -> {
            LaunchDims dims = LaunchDims.linear(n, 256);
            try (Buffer t1 = s.allocate(n * 4L);
                    Buffer t2 = s.allocate(n * 4L)) {
                s.launch(copy, dims, KernelArgs.of(in, t1).info(n));
                for (int k = 0; k < 49; k++) {
                    s.launch(saxpy, dims, KernelArgs.of(in, t1).info(n).infoFloat(1f));
                }
                s.launch(copy, dims, KernelArgs.of(t1, t2).info(n));
                s.launch(copy, dims, KernelArgs.of(t2, out).info(n));
                for (int k = 0; k < 48; k++) {
                    s.launch(saxpy, dims, KernelArgs.of(in, out).info(n).infoFloat(1f));
                }
            }
        };
    }
}
