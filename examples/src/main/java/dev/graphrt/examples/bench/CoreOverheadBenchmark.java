package dev.graphrt.examples.bench;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CPU-side costs of the core on the cpu backend (DESIGN.md section 11, issue: memory model): a pooled
 * allocate + close on the hot path, and a launch whose info words hit the metadata cache, eager versus
 * replayed from a graph; and what changing a graph of {@value #CHANGED} launches costs (issue 29): a capture
 * with no warm-up (graph closed after), an update with another scale, and a rebind of the buffer only its first
 * launch reads (and back). The kernel does nothing, so the figures are the framework's bookkeeping plus the
 * cpu backend's enqueue. Run: {@code scripts/bench-cpu.sh}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Dguice_bytecode_gen_option=DISABLED"})
public class CoreOverheadBenchmark {
    static final int BATCH = 256;
    static final int CHANGED = 100;
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});

    private GraphRuntime runtime;
    private GpuStream stream;
    private Kernel kernel;
    private Buffer a;
    private Buffer b;
    private KernelArgs args;
    private LaunchDims dims;
    private Graph graph;
    private Graph changing;
    private Buffer first;
    private Buffer second;
    private int invocations;
    private int updates;

    @Setup
    public void open() {
        runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        stream = runtime.openStream();
        kernel = runtime.compile(NOOP);
        a = stream.allocate(4096);
        b = stream.allocate(4096);
        args = KernelArgs.of(a, b).info(1024, 7, 3);
        dims = LaunchDims.linear(1024, 256);
        graph = stream.capture(CaptureOptions.defaults(), s -> {
            for (int i = 0; i < BATCH; i++) {
                s.launch(kernel, dims, args);
            }
        });
        first = stream.allocate(4096);
        second = stream.allocate(4096);
        changing = stream.capture(NO_WARMUP, chain(first, 1));
        stream.synchronize();
    }

    private static final CaptureOptions NO_WARMUP = CaptureOptions.defaults().warmups(0);

    /** {@value #CHANGED} launches, the first reading {@code input}, each with the info word {@code scale}. */
    private java.util.function.Consumer<GpuStream> chain(Buffer input, int scale) {
        return s -> {
            for (int i = 0; i < CHANGED; i++) {
                s.launch(kernel, dims, KernelArgs.of(i == 0 ? input : a, b).info(1024, scale));
            }
        };
    }

    @TearDown
    public void close() {
        changing.close();
        first.close();
        second.close();
        graph.close();
        a.close();
        b.close();
        runtime.close();
    }

    /** Allocate a 4 KiB buffer from the dynamic pool and close it (the release is fenced and reclaimed). */
    @Benchmark
    public Buffer pooledAllocateAndClose() {
        Buffer buffer = stream.allocate(4096);
        buffer.close();
        return buffer;
    }

    /**
     * One eager launch with cached info words: validation, cache hit, bindings, backend enqueue. The batch is
     * flushed to the stream's worker each time and synchronised every 64 batches, so the figure is the
     * caller's cost, not the thread hand-off of a sync.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void eagerLaunchWithCachedInfo() {
        for (int i = 0; i < BATCH; i++) {
            stream.launch(kernel, dims, args);
        }
        flushAndSometimesSync();
    }

    private void flushAndSometimesSync() {
        if (++invocations % 64 == 0) {
            stream.synchronize();
        } else {
            stream.flush();
        }
    }

    /** The same launches replayed from a graph: one enqueue for all of them, nothing looked up per launch. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void replayedLaunch() {
        graph.replay();
        flushAndSometimesSync();
    }

    /** A capture of {@value #CHANGED} launches with no warm-up (prepare, record, instantiate), then its close. */
    @Benchmark
    public Graph captureAndClose() {
        Graph captured = stream.capture(NO_WARMUP, chain(a, 2));
        captured.close();
        return captured;
    }

    /** An update of the held graph of {@value #CHANGED} launches with another info word (same shape). */
    @Benchmark
    public Object update() {
        return changing.update(NO_WARMUP, chain(first, 3 + (updates++ & 1)));
    }

    /** A rebind of the buffer only the first launch of the held graph reads, and back: two rebinds. */
    @Benchmark
    @OperationsPerInvocation(2)
    public void rebindOneNode() {
        changing.rebind(first, second);
        changing.rebind(second, first);
    }
}
