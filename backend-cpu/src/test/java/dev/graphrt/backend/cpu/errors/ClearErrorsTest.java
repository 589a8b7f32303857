package dev.graphrt.backend.cpu.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Issue 28: every error names its cause, through the public API as a user meets it. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ClearErrorsTest {
    private static final int N = 1000;
    private static final LaunchDims DIMS = LaunchDims.linear(N, 256);

    private static GraphRuntime open() {
        return GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
    }

    /** {@code dst[i] = src[i] + 1} for one more word than {@code dst} holds: the last write is past its end. */
    private static final KernelSource ONE_PAST = KernelSource.named("one_past")
            .java(
                    (args, from, to) -> {
                        MemorySegment src = args.buffer(0);
                        MemorySegment dst = args.buffer(1);
                        int n = args.info(0);
                        for (int i = from; i < to && i <= n; i++) {
                            int v = i < n ? src.getAtIndex(ValueLayout.JAVA_INT, i) : 0;
                            dst.setAtIndex(ValueLayout.JAVA_INT, i, v + 1);
                        }
                    },
                    KitKernels.SRC_DST_INFO);

    @Test
    void checked_mode_reports_a_java_kernels_write_past_a_buffer_as_an_overrun_naming_the_buffer_and_the_kernel() {
        try (GraphRuntime runtime =
                GraphRT.open(RuntimeOptions.defaults().backend("cpu").checked(true))) {
            GpuStream stream = runtime.openStream();
            Kernel onePast = runtime.compile(ONE_PAST);
            Buffer in = stream.upload(KitKernels.pattern(N, 3));
            Buffer out = stream.allocate(N * 4L);

            stream.launch(onePast, DIMS, KernelArgs.of(in, out).info(N));

            assertThatThrownBy(stream::synchronize).isInstanceOfSatisfying(BufferOverrunException.class, overrun -> {
                assertThat(overrun.buffer()).isEqualTo(out.toString());
                assertThat(overrun.offset()).as("the first byte past its end").isEqualTo(N * 4L);
                assertThat(overrun.lastLaunches()).singleElement().asString().contains("one_past");
            });
            Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
            stream.launch(addOne, DIMS, KernelArgs.of(in, out).info(N));
            assertThat(stream.readInts(out))
                    .as("the stream still computes")
                    .isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 3)));
        }
    }

    /** Writes word {@code 16 n} of {@code dst}: far past its end, past any slot the pool may round it up to. */
    private static final KernelSource FAR_PAST = KernelSource.named("far_past")
            .java(
                    (args, from, to) -> {
                        if (from == 0) {
                            args.buffer(1).setAtIndex(ValueLayout.JAVA_INT, 16L * args.info(0), 1);
                        }
                    },
                    KitKernels.SRC_DST_INFO);

    @Test
    void without_checked_mode_a_write_far_past_a_buffer_fails_the_sync_naming_the_kernel_and_the_argument() {
        try (GraphRuntime runtime = open()) {
            GpuStream stream = runtime.openStream();
            Kernel farPast = runtime.compile(FAR_PAST);
            Buffer in = stream.upload(KitKernels.pattern(N, 3));
            Buffer out = stream.allocate(N * 4L);

            stream.launch(farPast, DIMS, KernelArgs.of(in, out).info(N));

            assertThatThrownBy(stream::synchronize)
                    .isInstanceOf(DriverException.class)
                    .hasMessageContaining("kernel 'far_past' touched byte " + 64L * N + " of its buffer argument 1");
        }
    }

    @Test
    void every_call_after_the_runtime_closed_says_the_runtime_is_closed_before_any_argument_check() {
        GraphRuntime runtime = open();
        GpuStream stream = runtime.openStream();
        Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
        Buffer in = stream.upload(KitKernels.pattern(N, 1));
        Buffer out = stream.allocate(N * 4L);
        runtime.close();

        assertThatThrownBy(
                        () -> stream.launch(addOne, DIMS, KernelArgs.of(in, out).info(N)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("launch")
                .hasMessageContaining("cpu runtime")
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> stream.write(in, KitKernels.pattern(N, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("write: the cpu runtime");
        assertThatThrownBy(() -> stream.readFloats(out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("read: the cpu runtime");
        assertThatThrownBy(() -> stream.allocate(64))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allocate: the cpu runtime");
        assertThatThrownBy(stream::synchronize)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the cpu runtime");
    }

    @Test
    void a_read_into_a_closed_or_read_only_segment_is_refused_naming_dst_and_the_stream_stays_healthy() {
        try (GraphRuntime runtime = open();
                GpuStream stream = runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 3);
            Buffer buffer = stream.upload(x);
            Arena arena = Arena.ofConfined();
            MemorySegment gone = arena.allocate(N * 4L);
            arena.close();

            assertThatThrownBy(() -> stream.read(buffer, gone))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("dst:")
                    .hasMessageContaining("closed");
            assertThatThrownBy(() -> stream.write(buffer, gone))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("data:")
                    .hasMessageContaining("closed");
            MemorySegment readOnly = MemorySegment.ofArray(new int[N]).asReadOnly();
            assertThatThrownBy(() -> stream.read(buffer, readOnly))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("dst:")
                    .hasMessageContaining("read-only");

            stream.synchronize();
            assertThat(stream.readInts(buffer))
                    .as("nothing was queued; the stream works")
                    .isEqualTo(x);
        }
    }

    @Test
    void a_stream_that_joined_a_capture_and_was_closed_while_joined_is_torn_down_when_the_capture_ends() {
        try (GraphRuntime runtime = open();
                GpuStream stream = runtime.openStream()) {
            Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
            Buffer in = stream.upload(KitKernels.pattern(N, 4));
            Buffer out = stream.allocate(N * 4L);
            stream.launch(addOne, DIMS, KernelArgs.of(in, out).info(N));
            stream.synchronize();
            long before = cpuWorkers(); // this stream's own worker
            for (int round = 0; round < 10; round++) {
                GpuStream side = runtime.openStream();
                side.launch(addOne, DIMS, KernelArgs.of(in, out).info(N)); // starts its worker
                side.synchronize();
                stream.prepare();
                stream.beginCapture(CaptureOptions.defaults().mode(CaptureMode.RELAXED));
                side.waitFor(stream.record());
                side.launch(addOne, DIMS, KernelArgs.of(in, out).info(N));
                // closed from another thread while joined (RELAXED lets it)
                CompletableFuture.runAsync(side::close).join();
                try (Graph graph = stream.endCapture()) {
                    graph.replay();
                }
            }
            stream.synchronize();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (cpuWorkers() > before && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // a closed stream's worker thread may take a moment to exit after its executor
                // ends
            }
            assertThat(cpuWorkers()).as("no worker of a closed stream is left").isLessThanOrEqualTo(before);
        }
    }

    private static long cpuWorkers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("graphrt-cpu-stream-") && t.isAlive())
                .count();
    }

    @Test
    void an_empty_capture_warns_naming_the_stream_and_replays_nothing() {
        PrintStream err = System.err;
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        try (GraphRuntime runtime = open();
                GpuStream stream = runtime.openStream()) {
            System.setErr(new PrintStream(seen, true, StandardCharsets.UTF_8));
            try (Graph graph = stream.capture(CaptureOptions.defaults(), s -> {})) {
                assertThat(graph.info().nodeCount()).isZero();
                graph.replay();
                stream.synchronize();
            }
        } finally {
            System.setErr(err);
        }
        assertThat(seen.toString(StandardCharsets.UTF_8))
                .contains("WARN")
                .contains("the captured graph is empty")
                .contains("stream #1");
    }
}
