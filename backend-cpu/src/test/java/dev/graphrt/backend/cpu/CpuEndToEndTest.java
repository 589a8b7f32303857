package dev.graphrt.backend.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.ReplayFailedException;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** End to end through GraphRT.open() on the cpu backend: the user-visible behaviour of DESIGN.md sections 2-3 and 9. */
class CpuEndToEndTest {
    private static final int N = 3000;
    private static final LaunchDims DIMS = LaunchDims.linear(N, 256);

    private GraphRuntime runtime;
    private GpuStream stream;
    private Kernel addOne;
    private Kernel mulTwo;

    @BeforeEach
    void open() {
        runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        stream = runtime.openStream();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        mulTwo = runtime.compile(KitKernels.MUL_TWO);
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    private static KernelArgs args(Buffer src, Buffer dst) {
        return KernelArgs.of(src, dst).info(N);
    }

    @Test
    void discovery_picks_the_cpu_backend_without_a_gpu_and_compiles_once_per_source() {
        assertThat(runtime.backendName()).isEqualTo("cpu");
        assertThat(runtime.compile(KitKernels.ADD_ONE)).isSameAs(addOne);
    }

    @Test
    void one_kernel_is_captured_and_replayed() {
        int[] x = KitKernels.pattern(N, 1);
        try (Buffer in = stream.upload(x);
                Buffer out = stream.upload(KitKernels.poison(N));
                Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(addOne, DIMS, args(in, out)))) {
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
        }
    }

    @Test
    void a_two_kernel_chain_runs_through_an_intermediate_buffer_and_follows_input_rewrites() {
        try (Buffer in = stream.upload(KitKernels.pattern(N, 2));
                Buffer mid = stream.allocate(N * 4L);
                Buffer out = stream.allocate(N * 4L);
                Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                    s.launch(addOne, DIMS, args(in, mid));
                    s.launch(mulTwo, DIMS, args(mid, out));
                })) {
            for (int seed = 3; seed < 6; seed++) {
                int[] x = KitKernels.pattern(N, seed);
                stream.write(in, x);
                graph.replay();
                assertThat(stream.readInts(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            }
        }
    }

    @Test
    void a_read_inside_the_window_is_rejected_and_the_capture_still_ends() {
        try (Buffer in = stream.upload(KitKernels.pattern(N, 7));
                Buffer out = stream.allocate(N * 4L)) {
            stream.prepare();
            stream.beginCapture();
            stream.launch(addOne, DIMS, args(in, out));
            assertThatThrownBy(() -> stream.readInts(out))
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("read: stream #1 is recording")
                    .hasMessageContaining("endCapture()");
            try (Graph graph = stream.endCapture()) {
                graph.replay();
                assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 7)));
            }
        }
    }

    @Test
    void a_write_inside_the_window_fails_end_capture_naming_it() {
        try (Buffer in = stream.upload(KitKernels.pattern(N, 8))) {
            stream.prepare();
            stream.beginCapture();
            stream.write(in, new int[] {1, 2, 3});
            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("write of 12 bytes into buffer #1")
                    .hasMessageContaining("RECORDS_WRITES");
            assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        }
    }

    @Test
    void cancel_works_from_prepare_and_from_capture() {
        stream.prepare();
        stream.cancelCapture();
        stream.prepare();
        stream.beginCapture();
        stream.cancelCapture();
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        assertThatThrownBy(stream::cancelCapture)
                .isInstanceOf(GraphStateException.class)
                .hasMessageContaining("nothing to cancel");
    }

    @Test
    void a_kernel_that_fails_during_a_replay_surfaces_at_the_next_sync_naming_the_graph() {
        Kernel failing = runtime.compile(KernelSource.named("fails").java((a, from, to) -> {
            if (from == 0 && a.info(1) == 1) {
                throw new ArithmeticException("boom");
            }
        }));
        try (Buffer buffer = stream.allocate(16)) {
            Graph good = stream.capture(
                    CaptureOptions.defaults(),
                    s -> s.launch(
                            failing,
                            LaunchDims.linear(4, 4),
                            KernelArgs.of(buffer).info(4, 0)));
            good.replay();
            stream.synchronize();
            Graph bad = stream.capture(
                    CaptureOptions.defaults().warmups(0),
                    s -> s.launch(
                            failing,
                            LaunchDims.linear(4, 4),
                            KernelArgs.of(buffer).info(4, 1)));
            bad.replay();
            assertThatThrownBy(stream::synchronize)
                    .isInstanceOf(ReplayFailedException.class)
                    .hasMessageContaining("graph #" + bad.id())
                    .hasRootCauseInstanceOf(ArithmeticException.class);
            stream.synchronize();
        }
    }

    @Test
    void an_unreported_failure_refuses_prepare_and_leaves_the_stream_in_no_capture() throws Exception {
        Kernel failing = runtime.compile(KernelSource.named("always_fails").java((a, from, to) -> {
            throw new IllegalStateException("kernel bug");
        }));
        try (Buffer buffer = stream.allocate(16)) {
            stream.launch(failing, LaunchDims.linear(4, 4), KernelArgs.of(buffer));
            stream.flush();
            Thread.sleep(200);
            assertThatThrownBy(stream::prepare)
                    .isInstanceOf(GraphStateException.class)
                    .hasMessageContaining("not yet reported")
                    .hasRootCauseMessage("kernel bug");
            assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            stream.prepare();
            stream.cancelCapture();
        }
    }

    @Nested
    class Bad_input {
        @Test
        void a_null_kernel_is_named() {
            try (Buffer b = stream.allocate(64)) {
                assertThatThrownBy(() -> stream.launch(null, DIMS, KernelArgs.of(b)))
                        .isInstanceOf(NullPointerException.class)
                        .hasMessage("kernel");
            }
        }

        @Test
        void a_closed_buffer_is_named() {
            Buffer closed = stream.allocate(64);
            closed.close();
            closed.close();
            assertThatThrownBy(() -> stream.launch(addOne, DIMS, KernelArgs.of(closed, closed)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("args.buffers[0]")
                    .hasMessageContaining("is closed");
            assertThatThrownBy(() -> stream.readInts(closed))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("src");
        }

        @Test
        void a_closed_stream_refuses_work() {
            GpuStream other = runtime.openStream();
            other.close();
            other.close();
            assertThatThrownBy(() -> other.allocate(16))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stream #2 is closed");
            assertThatThrownBy(other::prepare).isInstanceOf(IllegalStateException.class);
        }

        @Test
        void a_closed_graph_fails_fast_and_closing_twice_is_a_no_op() {
            try (Buffer in = stream.upload(KitKernels.pattern(N, 9));
                    Buffer out = stream.allocate(N * 4L)) {
                Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(addOne, DIMS, args(in, out)));
                graph.close();
                graph.close();
                assertThatThrownBy(graph::replay)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("is closed");
            }
        }

        @Test
        void a_buffer_of_another_runtime_in_a_launch_is_refused_naming_both_runtimes_devices_and_nothing_runs() {
            try (GraphRuntime foreign = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
                    GpuStream foreignStream = foreign.openStream();
                    Buffer theirs = foreignStream.upload(KitKernels.pattern(N, 10));
                    Buffer ours = stream.upload(KitKernels.pattern(N, 20))) {
                assertThatThrownBy(() -> stream.launch(addOne, DIMS, args(theirs, ours)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("belongs to another runtime (cpu:0 ")
                        .hasMessageContaining("not to this one (cpu:0 ")
                        .hasMessageContaining("used only on the device and runtime that allocated it");
                assertThat(stream.readInts(ours)).as("nothing ran").containsExactly(KitKernels.pattern(N, 20));
                assertThat(foreignStream.readInts(theirs)).containsExactly(KitKernels.pattern(N, 10));
            }
        }

        @Test
        void a_graph_of_another_stream_or_runtime_is_refused() {
            try (Buffer in = stream.upload(KitKernels.pattern(N, 10));
                    Buffer out = stream.allocate(N * 4L);
                    GpuStream other = runtime.openStream();
                    GraphRuntime foreign =
                            GraphRT.open(RuntimeOptions.defaults().backend("cpu"))) {
                Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(addOne, DIMS, args(in, out)));
                assertThatThrownBy(() -> other.replay(graph))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("replay it there");
                GpuStream foreignStream = foreign.openStream();
                assertThatThrownBy(() -> foreignStream.replay(graph))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("another runtime");
                assertThatThrownBy(() -> foreignStream.launch(addOne, DIMS, args(in, out)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("kernel");
            }
        }

        @Test
        void negative_zero_and_absurd_sizes_are_named() {
            assertThatThrownBy(() -> stream.allocate(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bytes")
                    .hasMessageContaining("-1");
            assertThatThrownBy(() -> stream.allocate(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> stream.allocate(Long.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> LaunchDims.linear(-5, 256))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("elements");
            assertThatThrownBy(() -> CaptureOptions.defaults().warmups(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("warmups");
        }

        @Test
        void a_write_larger_than_the_buffer_is_refused_and_changes_nothing() {
            try (Buffer small = stream.upload(new int[] {7, 8})) {
                assertThatThrownBy(() -> stream.write(small, new int[] {1, 2, 3}))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("holds only 8");
                assertThat(stream.readInts(small)).containsExactly(7, 8);
            }
        }

        @Test
        void a_kernel_without_a_java_body_is_refused_naming_the_dialects() {
            assertThatThrownBy(
                            () -> runtime.compile(KernelSource.named("gpu_only").wgsl("fn gpu_only() {}")))
                    .isInstanceOf(KernelCompilationException.class)
                    .hasMessageContaining("[WGSL]")
                    .hasMessageContaining("[JAVA]");
        }

        @Test
        void work_on_a_closed_runtime_is_refused() {
            GraphRuntime closed = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
            closed.close();
            assertThatThrownBy(closed::openStream)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("runtime is closed");
        }
    }
}
