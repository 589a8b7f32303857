package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.conformance.model.SeamsModelGroup;
import dev.graphrt.spi.Capability;
import dev.graphrt.spi.GraphKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The capture-lifecycle contract every backend must pass. A backend's test is one class with one hook:
 * <pre>{@code
 * class CpuConformanceTest extends CaptureConformanceKit {
 *     protected GraphRuntime openRuntime() { return KitSupport.openOrSkip("cpu"); }
 * }
 * }</pre>
 * Every group is named for the property it defends. Capability-driven groups check a declared capability
 * works and an undeclared one fails the documented way, never skipping. Vectors span several blocks with a
 * ragged tail, values are non-trivial, outputs are poisoned before runs and compared exactly. No launch
 * passes one buffer twice: WebGPU forbids aliased writable bindings (docs/kernels.md).
 */
@ExtendWith(ConformanceReport.class)
public abstract class CaptureConformanceKit {
    /** Elements per vector: several blocks and a ragged tail. */
    protected static final int N = 4 * BLOCK + 37;
    /** Bytes of one vector. */
    protected static final long BYTES = N * 4L;
    private static final LaunchDims DIMS = LaunchDims.linear(N, BLOCK);

    protected GraphRuntime runtime;
    protected GpuStream stream;
    protected Kernel addOne;
    protected Kernel mulTwo;
    protected Kernel pingPong;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** The one hook: open the runtime of the backend under test (or skip with {@link KitSupport#openOrSkip}). */
    protected abstract GraphRuntime openRuntime();

    @BeforeEach
    void openBackend() {
        runtime = openRuntime();
        stream = runtime.openStream();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        mulTwo = runtime.compile(KitKernels.MUL_TWO);
        pingPong = runtime.compile(KitKernels.PING_PONG);
    }

    @AfterEach
    void closeBackend() throws Exception {
        if (runtime == null) {
            return;
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (stream.captureState() != CaptureState.NO_CAPTURE) {
            stream.cancelCapture();
        }
        stream.close();
        runtime.close();
    }

    /**
     * Loses the device of {@link #runtime} on purpose, for group 21 on a backend that declares
     * {@code DEVICE_LOSS_RECOVERY}. The default launches {@link KitKernels#TRAP} (CUDA C, which HIP also takes) on
     * {@link #stream}; the loss may surface only at the next sync. A backend whose kernels cannot trap overrides
     * this with its own way to lose a device (wgpu: a forced device loss), as a driver fault would.
     */
    protected void loseDevice() {
        Kernel trap = runtime.compile(KitKernels.TRAP);
        launch(stream, trap, upload(KitKernels.pattern(N, 48)), poisoned());
    }

    /**
     * Whether {@code GpuStream.copy} between two runtimes of this backend must work (group 27), rather than be
     * refused naming the way through the host. Not a capability: no operation of the base contract depends on it.
     * The default says no; a backend whose stream copies between its instances overrides it.
     */
    protected boolean copiesBetweenRuntimes() {
        return false;
    }

    /**
     * Opens the runtime through {@link #openRuntime()} with checked mode on or off: {@code -Dgraphrt.checked} is set
     * for the call (RuntimeOptions.defaults() reads it), then restored.
     */
    protected GraphRuntime openRuntime(boolean checked) {
        String before = System.getProperty("graphrt.checked");
        System.setProperty("graphrt.checked", String.valueOf(checked));
        try {
            return openRuntime();
        } finally {
            if (before == null) {
                System.clearProperty("graphrt.checked");
            } else {
                System.setProperty("graphrt.checked", before);
            }
        }
    }

    protected boolean declares(Capability capability) {
        return runtime.capabilities().contains(capability);
    }

    // ---- helpers -----------------------------------------------------------------------------------

    protected Buffer upload(int[] data) {
        return track(stream.upload(data));
    }

    protected Buffer poisoned() {
        return upload(KitKernels.poison(N));
    }

    protected <T extends AutoCloseable> T track(T resource) {
        toClose.add(resource);
        return resource;
    }

    protected static void launch(GpuStream s, Kernel kernel, Buffer src, Buffer dst, int... extraInfo) {
        int[] info = new int[1 + extraInfo.length];
        info[0] = N;
        System.arraycopy(extraInfo, 0, info, 1, extraInfo.length);
        s.launch(kernel, DIMS, KernelArgs.of(src, dst).info(info));
    }

    protected int[] read(Buffer buffer) {
        return stream.readInts(buffer);
    }

    protected Graph capture(Consumer<GpuStream> step) {
        return track(stream.capture(CaptureOptions.defaults(), step));
    }

    /** A full capture, replay and check on the stream, proving it is usable and can capture again. */
    protected void assertRecapturable() {
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        int[] x = KitKernels.pattern(N, 99);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Graph graph = capture(s -> launch(s, addOne, in, out));
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
    }

    /** After a capture ended in a refusal: the stream is back in NO_CAPTURE, runs work, and can capture again. */
    protected void assertUsableAfterARefusedCapture(Buffer in, Buffer out, int[] input) {
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        stream.write(in, input);
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream stays usable").isEqualTo(KitKernels.addOne(input));
        assertRecapturable();
    }

    private void reach(CaptureState state) {
        if (state != CaptureState.NO_CAPTURE) {
            stream.prepare();
        }
        if (state == CaptureState.CAPTURE) {
            stream.beginCapture();
        }
    }

    // ---- 1 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("1. Lifecycle order")
    class LifecycleOrder {
        @Test
        void every_state_and_call_pair_follows_the_table_and_a_refused_call_changes_nothing() {
            String[] calls = {"prepare", "beginCapture", "endCapture", "cancelCapture"};
            for (CaptureState from : CaptureState.values()) {
                for (String call : calls) {
                    reach(from);
                    CaptureState expected = switch (call) {
                        case "prepare" -> from == CaptureState.NO_CAPTURE ? CaptureState.PREPARE : null;
                        case "beginCapture" -> from == CaptureState.PREPARE ? CaptureState.CAPTURE : null;
                        case "endCapture" -> from == CaptureState.CAPTURE ? CaptureState.NO_CAPTURE : null;
                        default -> from != CaptureState.NO_CAPTURE ? CaptureState.NO_CAPTURE : null;
                    };
                    Throwable thrown = catchThrowable(() -> {
                        switch (call) {
                            case "prepare" -> stream.prepare();
                            case "beginCapture" -> stream.beginCapture();
                            case "endCapture" -> track(stream.endCapture());
                            default -> stream.cancelCapture();
                        }
                    });
                    if (expected == null) {
                        assertThat(thrown).as("%s from %s", call, from).isInstanceOf(GraphStateException.class)
                                .hasMessageContaining(call);
                        assertThat(stream.captureState()).as("%s from %s changed nothing", call, from).isEqualTo(from);
                    } else {
                        assertThat(thrown).as("%s from %s", call, from).isNull();
                        assertThat(stream.captureState()).isEqualTo(expected);
                    }
                    if (stream.captureState() != CaptureState.NO_CAPTURE) {
                        stream.cancelCapture();
                    }
                }
            }
            assertRecapturable();
        }

        @Test
        void a_rejected_transition_changes_nothing_and_the_capture_still_works() {
            int[] x = KitKernels.pattern(N, 1);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            assertThatThrownBy(stream::endCapture).isInstanceOf(GraphStateException.class);
            assertThatThrownBy(stream::prepare).isInstanceOf(GraphStateException.class);
            assertThat(stream.captureState()).isEqualTo(CaptureState.PREPARE);
            stream.beginCapture();
            assertThatThrownBy(stream::beginCapture).isInstanceOf(GraphStateException.class);
            launch(stream, addOne, in, out);
            Graph graph = track(stream.endCapture());
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void cancel_from_prepare_leaves_the_stream_recapturable() {
            stream.prepare();
            Buffer temp = stream.allocate(BYTES);
            temp.close();
            stream.cancelCapture();
            assertRecapturable();
        }

        @Test
        void cancel_from_capture_leaves_the_stream_recapturable() {
            Buffer in = upload(KitKernels.pattern(N, 2));
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();
            launch(stream, addOne, in, out);
            stream.cancelCapture();
            assertThat(read(out)).as("a cancelled recording never runs").containsOnly(KitKernels.POISON);
            assertRecapturable();
        }

        @Test
        void a_step_that_throws_inside_capture_leaves_the_stream_recapturable() {
            Buffer in = upload(KitKernels.pattern(N, 3));
            Buffer out = poisoned();
            for (int failOnRun : new int[] {0, 1}) {
                int[] runs = {0};
                IllegalStateException boom = new IllegalStateException("step failed on run " + failOnRun);
                assertThatThrownBy(() -> stream.capture(CaptureOptions.defaults(), s -> {
                    launch(s, addOne, in, out);
                    if (runs[0]++ == failOnRun) {
                        throw boom;
                    }
                })).isSameAs(boom);
                assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            }
            assertRecapturable();
        }

        @Test
        void the_stream_can_capture_again_after_each_kind_of_failure() {
            Buffer in = upload(KitKernels.pattern(N, 4));
            Buffer out = poisoned();
            catchThrowable(stream::beginCapture);
            stream.prepare();
            catchThrowable(stream::prepare);
            stream.cancelCapture();
            catchThrowable(() -> stream.capture(CaptureOptions.defaults(), s -> {
                throw new IllegalArgumentException("user bug");
            }));
            stream.prepare();
            stream.beginCapture();
            catchThrowable(() -> read(out));
            launch(stream, addOne, in, out);
            track(stream.endCapture());
            assertRecapturable();
        }
    }

    // ---- 2 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("2. Capture and replay")
    class CaptureAndReplay {
        @Test
        void one_launch_replayed_twice_gives_the_same_exact_result() {
            int[] x = KitKernels.pattern(N, 5);
            Buffer in = upload(x);
            Buffer out = poisoned();
            Graph graph = capture(s -> launch(s, addOne, in, out));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
            assertThat(graph.info().replayCount()).isEqualTo(2);
            assertThat(graph.info().nodeCount()).isEqualTo(1);
        }

        @Test
        void the_recorded_pass_does_not_execute() {
            int[] x = KitKernels.pattern(N, 6);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();
            launch(stream, addOne, in, out);
            Graph graph = track(stream.endCapture());
            assertThat(read(out)).as("nothing ran before the first replay").containsOnly(KitKernels.POISON);
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void replay_is_deterministic_over_100_replays_of_a_two_kernel_chain() {
            int[] model = KitKernels.pattern(N, 7);
            Buffer a = upload(model);
            Buffer b = poisoned();
            Graph graph;
            stream.prepare();
            stream.beginCapture();
            launch(stream, addOne, a, b);
            launch(stream, mulTwo, b, a);
            graph = track(stream.endCapture());
            for (int r = 1; r <= 100; r++) {
                graph.replay();
                model = KitKernels.mulTwo(KitKernels.addOne(model));
                if (r % 10 == 0) {
                    assertThat(read(a)).as("after %d replays", r).isEqualTo(model);
                }
            }
        }
    }

    // ---- 3 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("3. Input rewrite")
    class InputRewrite {
        @Test
        void new_bytes_written_into_a_captured_input_change_the_next_replay() {
            Buffer in = upload(KitKernels.pattern(N, 8));
            Buffer mid = poisoned();
            Buffer out = poisoned();
            Graph graph = capture(s -> {
                launch(s, addOne, in, mid);
                launch(s, mulTwo, mid, out);
            });
            for (int seed = 20; seed < 25; seed++) {
                int[] x = KitKernels.pattern(N, seed);
                stream.write(in, x);
                stream.write(out, KitKernels.poison(N));
                graph.replay();
                assertThat(read(out)).as("input seed %d", seed).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            }
        }
    }

    // ---- 4 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("4. Intermediate recycling")
    class IntermediateRecycling {
        @Test
        void a_temporary_closed_inside_the_window_is_never_handed_to_a_later_allocation() {
            int[] x = KitKernels.pattern(N, 9);
            Buffer in = upload(x);
            Buffer out = poisoned();
            Graph graph = capture(s -> {
                try (Buffer temp = s.allocate(BYTES)) {
                    launch(s, addOne, in, temp);
                    launch(s, mulTwo, temp, out);
                }
            });
            List<Buffer> sentinels = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Buffer sentinel = track(stream.allocate(BYTES));
                stream.write(sentinel, marker(i));
                sentinels.add(sentinel);
            }
            stream.prepare();
            for (int i = 0; i < 8; i++) {
                Buffer sentinel = track(stream.allocate(BYTES));
                stream.write(sentinel, marker(8 + i));
                sentinels.add(sentinel);
            }
            stream.cancelCapture();
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            for (int i = 0; i < sentinels.size(); i++) {
                assertThat(read(sentinels.get(i))).as("sentinel %d untouched", i).isEqualTo(marker(i));
            }
        }
    }

    private static int[] marker(int i) {
        int[] m = new int[N];
        Arrays.fill(m, 0x5E000000 + i);
        return m;
    }

    // ---- 5 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("5. Many launches with dynamic metadata")
    class ManyLaunches {
        private static final int LAUNCHES = 150;

        private void step(GpuStream s, Buffer a, Buffer b) {
            for (int k = 0; k < LAUNCHES; k++) {
                launch(s, pingPong, k % 2 == 0 ? a : b, k % 2 == 0 ? b : a, k % 5);
            }
        }

        private int[] simulate(int[] x) {
            int[] state = x;
            for (int k = 0; k < LAUNCHES; k++) {
                state = KitKernels.pingPong(state, k % 5);
            }
            return state;
        }

        @Test
        void a_150_launch_ping_pong_reading_its_length_from_info_replays_the_simulated_state() {
            int[] x = KitKernels.pattern(N, 10);
            Buffer a = upload(x);
            Buffer b = poisoned();
            stream.prepare();
            step(stream, a, b);
            int[] afterWarmup = simulate(x);
            assertThat(read(a)).as("the warm-up executes and is readable").isEqualTo(afterWarmup);
            stream.beginCapture();
            step(stream, a, b);
            Graph graph = track(stream.endCapture());
            assertThat(graph.info().nodeCount()).isEqualTo(LAUNCHES);
            assertThat(read(a)).as("the recorded pass does not run").isEqualTo(afterWarmup);
            graph.replay();
            graph.replay();
            assertThat(read(a)).as("two replays").isEqualTo(simulate(simulate(afterWarmup)));
            int[] fresh = KitKernels.pattern(N, 11);
            stream.write(a, fresh);
            graph.replay();
            assertThat(read(a)).as("rewrite then one replay").isEqualTo(simulate(fresh));
        }
    }

    // ---- 6 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("6. Mid-capture allocation")
    class MidCaptureAllocation {
        private static final long ODD = 3_145_733;

        @Test
        void an_odd_sized_allocation_inside_the_window_is_honoured_or_refused_as_declared() {
            int[] x = KitKernels.pattern(N, 12);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();
            if (declares(Capability.MID_CAPTURE_ALLOCATION)) {
                Buffer temp = stream.allocate(ODD);
                launch(stream, addOne, in, temp);
                launch(stream, mulTwo, temp, out);
                temp.close();
                Graph graph = track(stream.endCapture());
                assertThat(graph.info().pinnedBytes()).isGreaterThanOrEqualTo(ODD);
                graph.replay();
                assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            } else {
                assertThatThrownBy(() -> stream.allocate(ODD)).isInstanceOf(CaptureRejectedException.class)
                        .hasMessageContaining("Warm up");
                assertThatThrownBy(stream::endCapture).isInstanceOf(GraphNotRelaunchableException.class);
                assertUsableAfterARefusedCapture(in, out, x);
            }
        }
    }

    // ---- 7 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("7. Host sync while recording")
    class HostSyncWhileRecording {
        @Test
        void read_sync_and_flush_are_rejected_eagerly_and_the_capture_still_ends_and_replays() {
            int[] x = KitKernels.pattern(N, 13);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();
            launch(stream, addOne, in, out);
            assertThatThrownBy(() -> stream.readInts(out)).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("read");
            assertThatThrownBy(stream::synchronize).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("synchronize");
            assertThatThrownBy(stream::flush).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("flush");
            assertThat(stream.captureState()).isEqualTo(CaptureState.CAPTURE);
            Graph graph = track(stream.endCapture());
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
        }
    }

    // ---- 8 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("8. Writes while recording")
    class WritesWhileRecording {
        @Test
        void a_write_inside_the_window_is_replayed_or_fails_end_capture_as_declared() {
            int[] captured = KitKernels.pattern(N, 14);
            int[] later = KitKernels.pattern(N, 15);
            Buffer in = upload(KitKernels.pattern(N, 16));
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();
            stream.write(in, captured);
            launch(stream, addOne, in, out);
            if (declares(Capability.RECORDS_WRITES)) {
                Graph graph = track(stream.endCapture());
                stream.write(in, later);
                graph.replay();
                assertThat(read(out)).as("every replay re-writes the captured bytes").isEqualTo(KitKernels.addOne(captured));
            } else {
                assertThatThrownBy(stream::endCapture).isInstanceOf(CaptureRejectedException.class)
                        .hasMessageContaining("write of " + BYTES + " bytes");
                assertUsableAfterARefusedCapture(in, out, later);
            }
        }
    }

    // ---- 9 ------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("9. Destroy during an enqueued replay")
    class DestroyDuringReplay {
        @Test
        void closing_a_graph_right_after_its_replay_does_not_release_memory_the_replay_still_uses() {
            // The sentinels are written from a second stream, which does not wait for this one: only the
            // fence behind the close keeps the replay's temporaries out of their way.
            int[] x = KitKernels.pattern(N, 17);
            Buffer in = upload(x);
            Buffer out = poisoned();
            Consumer<GpuStream> step = s -> {
                try (Buffer t1 = s.allocate(BYTES); Buffer t2 = s.allocate(BYTES)) {
                    launch(s, addOne, in, t1);
                    for (int k = 0; k < 40; k++) {
                        launch(s, k % 2 == 0 ? addOne : mulTwo, k % 2 == 0 ? t1 : t2, k % 2 == 0 ? t2 : t1);
                    }
                    launch(s, mulTwo, t1, out);
                }
            };
            Graph graph = stream.capture(CaptureOptions.defaults(), step);
            GpuStream writer = track(runtime.openStream());
            graph.replay();
            graph.close();
            stream.prepare();
            List<Buffer> sentinels = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Buffer sentinel = track(stream.allocate(BYTES));
                writer.write(sentinel, marker(i));
                sentinels.add(sentinel);
            }
            writer.synchronize();
            int[] expected = KitKernels.addOne(x);
            for (int k = 0; k < 40; k++) {
                expected = k % 2 == 0 ? KitKernels.addOne(expected) : KitKernels.mulTwo(expected);
            }
            assertThat(read(out)).isEqualTo(KitKernels.mulTwo(expected));
            for (int i = 0; i < 8; i++) {
                assertThat(read(sentinels.get(i))).isEqualTo(marker(i));
            }
            stream.cancelCapture();
            assertThatThrownBy(graph::replay).isInstanceOf(IllegalStateException.class);
        }
    }

    // ---- 10 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("10. Isolation")
    class Isolation {
        @Test
        void another_thread_works_on_its_own_stream_while_this_one_records() throws Exception {
            int[] x = KitKernels.pattern(N, 18);
            int[] y = KitKernels.pattern(N, 19);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer out = poisoned();
            GpuStream other = track(runtime.openStream());
            stream.prepare();
            stream.beginCapture();
            launch(stream, addOne, in, mid);
            AtomicReference<Object> seen = new AtomicReference<>();
            Thread worker = new Thread(() -> {
                try (Buffer a = other.upload(y); Buffer b = other.allocate(BYTES)) {
                    launch(other, mulTwo, a, b);
                    seen.set(other.readInts(b));
                } catch (Throwable failure) {
                    seen.set(failure);
                }
            }, "isolation-worker");
            worker.start();
            worker.join();
            launch(stream, mulTwo, mid, out);
            Graph graph = track(stream.endCapture());
            assertThat(seen.get()).as("stream B's own result").isEqualTo(KitKernels.mulTwo(y));
            assertThat(graph.info().nodeCount()).as("A's graph holds only A's launches").isEqualTo(2);
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        }
    }

    // ---- 11 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("11. Several graphs on one stream")
    class SeveralGraphs {
        @Test
        void interleaved_replays_of_several_graphs_are_each_right_and_closing_one_leaves_the_others() {
            int[] x = KitKernels.pattern(N, 21);
            Buffer in = upload(x);
            Buffer plus = poisoned();
            Buffer times = poisoned();
            Graph g1 = capture(s -> launch(s, addOne, in, plus));
            Graph g2 = capture(s -> launch(s, mulTwo, in, times));
            for (int round = 0; round < 3; round++) {
                int[] v = KitKernels.pattern(N, 30 + round);
                stream.write(in, v);
                g2.replay();
                g1.replay();
                assertThat(read(plus)).isEqualTo(KitKernels.addOne(v));
                assertThat(read(times)).isEqualTo(KitKernels.mulTwo(v));
            }
            g1.close();
            assertThat(g1.isClosed()).isTrue();
            stream.write(in, x);
            g2.replay();
            assertThat(read(times)).isEqualTo(KitKernels.mulTwo(x));
            assertThatThrownBy(g1::replay).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            g1.close();
        }
    }

    // ---- 12 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("12. Thread confinement")
    class ThreadConfinement {
        private Throwable launchFromAnotherThread(Buffer in, Buffer out) throws InterruptedException {
            AtomicReference<Throwable> seen = new AtomicReference<>();
            Thread intruder = new Thread(() -> {
                try {
                    launch(stream, mulTwo, in, out);
                } catch (Throwable failure) {
                    seen.set(failure);
                }
            }, "intruder");
            intruder.start();
            intruder.join();
            return seen.get();
        }

        @Test
        void a_launch_from_another_thread_is_rejected_while_recording_in_thread_local_mode() throws Exception {
            int[] x = KitKernels.pattern(N, 22);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture(CaptureOptions.defaults().mode(CaptureMode.THREAD_LOCAL));
            launch(stream, addOne, in, out);
            assertThat(launchFromAnotherThread(in, out)).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("intruder").hasMessageContaining("RELAXED");
            Graph graph = track(stream.endCapture());
            assertThat(graph.info().nodeCount()).isEqualTo(1);
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void relaxed_mode_records_launches_from_other_threads_or_is_unsupported_as_declared() throws Exception {
            int[] x = KitKernels.pattern(N, 23);
            Buffer in = upload(x);
            Buffer out = poisoned();
            stream.prepare();
            CaptureOptions relaxed = CaptureOptions.defaults().mode(CaptureMode.RELAXED);
            if (!declares(Capability.CAPTURE_MODE_RELAXED)) {
                assertThatThrownBy(() -> stream.beginCapture(relaxed)).isInstanceOf(UnsupportedCapabilityException.class)
                        .hasMessageEndingWith("does not support CAPTURE_MODE_RELAXED: beginCapture in RELAXED mode");
                assertThat(stream.captureState()).isEqualTo(CaptureState.PREPARE);
                stream.cancelCapture();
                return;
            }
            Buffer mid = poisoned();
            stream.beginCapture(relaxed);
            launch(stream, addOne, in, mid);
            assertThat(launchFromAnotherThread(mid, out)).isNull();
            Graph graph = track(stream.endCapture());
            assertThat(graph.info().nodeCount()).isEqualTo(2);
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        }
    }

    // ---- 13 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("13. Memory")
    class Memory {
        private Graph captureWithTemporaries(Buffer in, Buffer out, int warmups) {
            return stream.capture(CaptureOptions.defaults().warmups(warmups), s -> {
                try (Buffer t1 = s.allocate(BYTES)) {
                    launch(s, addOne, in, t1);
                    try (Buffer t2 = s.allocate(2 * BYTES)) {
                        launch(s, mulTwo, t1, t2);
                        launch(s, addOne, t2, out);
                    }
                }
            });
        }

        @Test
        void pinned_bytes_equal_the_slices_the_window_touched_and_do_not_grow_with_warm_ups() {
            Buffer in = upload(KitKernels.pattern(N, 24));
            Buffer out = poisoned();
            launch(stream, addOne, in, out);
            launch(stream, mulTwo, in, out);
            stream.synchronize();
            runtime.trim();
            MemoryStats before = runtime.memoryStats();

            Graph one = captureWithTemporaries(in, out, 1);
            MemoryStats during = runtime.memoryStats();
            long pinned = one.info().pinnedBytes();
            assertThat(pinned).isGreaterThanOrEqualTo(3 * BYTES);
            long grownAndStillFree = during.persistentFreeBytes() - before.persistentFreeBytes();
            assertThat(pinned).as("the window's slices are exactly what the pool grew by, less what it left free")
                    .isEqualTo(during.reservedBytes() - before.reservedBytes() - grownAndStillFree);
            assertThat(during.pinnedPerGraph()).containsEntry(one.id(), pinned);
            one.close();
            stream.synchronize();
            runtime.trim();

            Graph three = captureWithTemporaries(in, out, 3);
            assertThat(three.info().pinnedBytes()).as("3 warm-ups pin what 1 pins").isEqualTo(pinned);
            assertThat(runtime.memoryStats().reservedBytes()).isEqualTo(during.reservedBytes());
            three.replay();
            assertThat(read(out)).isEqualTo(KitKernels.addOne(KitKernels.mulTwo(KitKernels.addOne(
                    KitKernels.pattern(N, 24)))));
            three.close();
            stream.synchronize();
            runtime.trim();
            MemoryStats after = runtime.memoryStats();
            assertThat(after.reservedBytes()).as("back to the pre-capture figure").isEqualTo(before.reservedBytes());
            assertThat(after.pinnedBytes()).isZero();
            assertThat(after.pinnedPerGraph()).isEmpty();
        }
    }

    // ---- 14 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("14. Graph export")
    class GraphExport {
        @Test
        void to_dot_names_one_node_per_recorded_launch() {
            Buffer a = upload(KitKernels.pattern(N, 25));
            Buffer b = poisoned();
            Graph graph = capture(s -> {
                launch(s, addOne, a, b);
                launch(s, mulTwo, b, a);
                launch(s, addOne, a, b);
            });
            String dot = graph.toDot();
            assertThat(dot).contains("digraph").contains("add_one").contains("mul_two");
            assertThat(graph.info().nodeCount()).isEqualTo(3);
            if (!declares(Capability.DOT_EXPORT)) {
                assertThat(dot.lines().filter(line -> line.contains("[shape=box")).count())
                        .as("the core's rendering: one node per launch").isEqualTo(3);
            }
        }
    }

    // ---- 15 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("15. Replaying a graph inside a capture")
    class NestedReplay {
        @Test
        void a_replay_inside_the_window_is_recorded_as_a_child_or_fails_end_capture_naming_the_graph() {
            int[] x = KitKernels.pattern(N, 26);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer out = poisoned();
            Graph inner = capture(s -> launch(s, addOne, in, mid));
            stream.write(mid, KitKernels.poison(N));
            stream.prepare();
            stream.beginCapture();
            inner.replay();
            launch(stream, mulTwo, mid, out);
            if (declares(Capability.NESTED_GRAPHS)) {
                Graph outer = track(stream.endCapture());
                outer.replay();
                assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
                for (int again = 0; again < 2; again++) { // the child's work runs on every replay of the parent
                    stream.write(mid, KitKernels.poison(N));
                    stream.write(out, KitKernels.poison(N));
                    outer.replay();
                    assertThat(read(mid)).as("the child wrote mid").isEqualTo(KitKernels.addOne(x));
                    assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
                }
            } else {
                assertThatThrownBy(stream::endCapture).isInstanceOf(CaptureRejectedException.class)
                        .hasMessageContaining("replay of graph #" + inner.id()).hasMessageContaining("NESTED_GRAPHS");
                assertThat(read(mid)).as("the refused replay did not run").containsOnly(KitKernels.POISON);
                inner.replay();
                assertThat(read(mid)).as("the inner graph still replays").isEqualTo(KitKernels.addOne(x));
                assertUsableAfterARefusedCapture(in, out, x);
            }
        }
    }

    // ---- 16 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("16. Closing a buffer a live graph uses")
    class ClosingABufferALiveGraphUses {
        @Test
        void the_graph_still_replays_right_and_no_later_allocation_is_overwritten() {
            int[] x = KitKernels.pattern(N, 41);
            Buffer in = stream.upload(x);
            Buffer mid = stream.allocate(BYTES);
            Buffer out = poisoned();
            Graph graph = capture(s -> {
                launch(s, mulTwo, in, mid);
                launch(s, addOne, mid, out);
            });
            in.close();
            mid.close();
            assertThat(in.isClosed()).isTrue();
            assertThat(runtime.memoryStats().retainedByGraphsBytes()).as("the graph retains in and mid")
                    .isGreaterThanOrEqualTo(2 * BYTES);
            List<Buffer> later = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                Buffer buffer = track(stream.allocate(BYTES));
                stream.write(buffer, marker(i));
                later.add(buffer);
            }
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            graph.replay();
            assertThat(read(out)).as("the closed input's bytes still feed the graph")
                    .isEqualTo(KitKernels.addOne(KitKernels.mulTwo(x)));
            for (int i = 0; i < later.size(); i++) {
                assertThat(read(later.get(i))).as("buffer %d allocated after the close", i).isEqualTo(marker(i));
            }
            assertThatThrownBy(() -> launch(stream, addOne, in, out)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("args.buffers[0]").hasMessageContaining("closed");
            graph.close();
            stream.synchronize();
            assertThat(runtime.memoryStats().retainedByGraphsBytes()).as("nothing retained once it is closed").isZero();
        }
    }

    // ---- 17 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("17. Another stream's pending work")
    class AnotherStreamsPendingWork {
        @Test
        void a_buffer_used_by_another_streams_pending_work_is_not_reused_before_that_work_completes() {
            GpuStream other = track(runtime.openStream());
            int[] x = KitKernels.pattern(N, 43);
            Buffer shared = stream.allocate(BYTES);
            stream.synchronize();
            Buffer a = track(other.upload(x));
            Buffer b = track(other.allocate(BYTES));
            for (int k = 0; k < 400; k++) {
                launch(other, k % 2 == 0 ? addOne : mulTwo, k % 2 == 0 ? a : b, k % 2 == 0 ? b : a);
            }
            launch(other, mulTwo, a, shared); // the other stream's last write, queued behind the chain
            shared.close();
            List<Buffer> victims = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Buffer victim = track(stream.allocate(BYTES));
                stream.write(victim, marker(i));
                victims.add(victim);
            }
            stream.synchronize();
            other.synchronize();
            for (int i = 0; i < victims.size(); i++) {
                assertThat(read(victims.get(i))).as("buffer %d allocated after the close", i).isEqualTo(marker(i));
            }
        }
    }

    // ---- 18 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("18. Closing after the runtime")
    class ClosingAfterTheRuntime {
        @Test
        void buffers_graphs_and_streams_closed_after_the_runtime_in_any_order_and_from_another_thread_are_no_ops()
                throws Exception {
            int[] x = KitKernels.pattern(N, 45);
            Buffer in = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, out));
            GpuStream other = runtime.openStream();
            Buffer elsewhere = other.upload(x);
            graph.replay(); // still pending when the runtime closes
            stream.prepare();
            stream.beginCapture(); // and this stream records
            launch(stream, mulTwo, in, out);

            runtime.close();

            List<AutoCloseable> order = List.of(elsewhere, graph, other, in, stream, out);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread closer = new Thread(() -> {
                try {
                    for (int i = order.size() - 1; i >= 0; i -= 2) {
                        order.get(i).close();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "closer");
            closer.start();
            for (int i = 0; i < order.size(); i += 2) {
                order.get(i).close();
            }
            closer.join();
            assertThat(failure.get()).as("closing from another thread").isNull();
            for (AutoCloseable resource : order) {
                resource.close(); // twice, in yet another order
            }
            assertThat(in.isClosed()).isTrue();
            assertThat(out.isClosed()).isTrue();
            assertThat(elsewhere.isClosed()).isTrue();
            assertThat(graph.isClosed()).isTrue();
            assertThatThrownBy(stream::endCapture).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThatThrownBy(graph::replay).isInstanceOf(IllegalStateException.class);
        }
    }

    // ---- 21 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("21. Device loss")
    class DeviceLoss {
        @Test
        void a_lost_device_loses_only_its_runtime_and_a_new_runtime_computes_or_ordinary_failures_lose_nothing() {
            int[] x = KitKernels.pattern(N, 47);
            if (!declares(Capability.DEVICE_LOSS_RECOVERY)) {
                // No trap here (on NVIDIA it poisons the whole process); an ordinary failure must not lose the runtime.
                Buffer in = upload(x);
                Buffer out = poisoned();
                assertThatThrownBy(() -> stream.launch(addOne, DIMS, KernelArgs.of(in).info(N)))
                        .isInstanceOf(IllegalArgumentException.class);
                launch(stream, addOne, in, out);
                assertThat(read(out)).as("the runtime is not lost by ordinary failures").isEqualTo(KitKernels.addOne(x));
                return;
            }
            Buffer in = upload(x);
            Buffer out = poisoned();
            launch(stream, addOne, in, out);
            loseDevice();
            Throwable lost = catchThrowable(stream::synchronize);
            assertThat(lost).as("the trap surfaces at the next sync").isInstanceOf(DeviceLostException.class);
            assertThatThrownBy(() -> stream.allocate(BYTES)).isInstanceOf(DeviceLostException.class)
                    .hasMessageContaining("lost earlier");
            assertThatThrownBy(runtime::openStream).isInstanceOf(DeviceLostException.class);
            GraphRuntime lostRuntime = runtime;
            GpuStream lostStream = stream;
            in.close();
            out.close();
            lostStream.close();
            lostRuntime.close();

            runtime = openRuntime();
            stream = runtime.openStream();
            addOne = runtime.compile(KitKernels.ADD_ONE);
            Buffer again = track(stream.upload(x));
            Buffer result = track(stream.upload(KitKernels.poison(N)));
            launch(stream, addOne, again, result);
            assertThat(stream.readInts(result)).as("a new runtime on the same device works")
                    .isEqualTo(KitKernels.addOne(x));
        }
    }

    // ---- 19 -----------------------------------------------------------------------------------------

    /**
     * No close order crashes the process or leaves it unsound (issue 13 §2: on the H200 one order killed the JVM
     * in a driver thread). Each order runs in {@value #ROUNDS} fresh runtimes opened one after another through
     * the kit's hook; each fresh runtime first proves it computes exactly, so it also checks the order before it,
     * and one more fresh runtime checks the last. With {@value #ORDERS} orders the group opens
     * {@value #ORDERS} x ({@value #ROUNDS} + 1) runtimes besides the kit's own, which stays open throughout and
     * must still capture and replay at the end.
     */
    @Nested
    @DisplayName("19. Close orders")
    class CloseOrders {
        private static final int ROUNDS = 2;
        private static final int ORDERS = 15;
        private int seed = 500;

        /** A close order: does its closing on a scene, asserting what must hold. */
        @FunctionalInterface
        private interface Order {
            void closeIn(CloseOrderScene scene) throws Exception;
        }

        private void inFreshRuntimes(Order order) throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                CloseOrderScene scene = CloseOrderScene.open(openRuntime(), seed++);
                try {
                    order.closeIn(scene);
                } finally {
                    scene.runtime.close(); // a failed order must not leave a capture open for the next test
                }
            }
            CloseOrderScene next = CloseOrderScene.open(openRuntime(), seed++);
            assertThat(CloseOrderScene.closeAll(List.of(next.graph, next.in, next.out, next.stream))).isNull();
            next.runtime.close();
            assertRecapturable();
        }

        @Test
        void everything_closed_before_the_runtime_in_the_order_it_was_made() throws Exception {
            inFreshRuntimes(scene -> {
                assertThat(CloseOrderScene.closeAll(List.of(scene.in, scene.out, scene.graph, scene.stream)))
                        .isNull();
                scene.assertBuffersAndGraphClosed();
                scene.runtime.close();
            });
        }

        @Test
        void everything_closed_before_the_runtime_last_made_first() throws Exception {
            inFreshRuntimes(scene -> {
                assertThat(CloseOrderScene.closeAll(List.of(scene.stream, scene.graph, scene.out, scene.in)))
                        .isNull();
                scene.assertBuffersAndGraphClosed();
                assertThatThrownBy(scene.graph::replay).isInstanceOf(IllegalStateException.class);
                scene.runtime.close();
            });
        }

        @Test
        void the_runtime_closed_first_then_everything_in_the_order_it_was_made() throws Exception {
            inFreshRuntimes(scene -> {
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(List.of(scene.in, scene.out, scene.graph, scene.stream)))
                        .isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void the_runtime_closed_first_then_everything_last_made_first() throws Exception {
            inFreshRuntimes(scene -> {
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(List.of(scene.stream, scene.graph, scene.out, scene.in)))
                        .isNull();
                scene.assertBuffersAndGraphClosed();
                assertThatThrownBy(() -> scene.stream.allocate(16)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
            });
        }

        @Test
        void the_runtime_closed_with_a_replay_pending_then_the_graph_and_its_buffers() throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(List.of(scene.graph, scene.out, scene.in, scene.stream)))
                        .isNull();
                scene.assertBuffersAndGraphClosed();
                assertThatThrownBy(scene.graph::replay).isInstanceOf(IllegalStateException.class);
            });
        }

        @Test
        void the_graph_closed_with_its_replay_pending_then_its_buffers_then_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                scene.graph.close();
                assertThat(scene.graph.isClosed()).isTrue();
                assertThat(CloseOrderScene.closeAll(List.of(scene.in, scene.out))).isNull();
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(List.of(scene.stream))).as("the stream, after").isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void a_buffer_the_graph_uses_closed_first_then_a_replay_left_pending_when_the_runtime_closes()
                throws Exception {
            inFreshRuntimes(scene -> {
                scene.in.close();
                assertThat(scene.in.isClosed()).isTrue();
                scene.replayPending(); // the graph still holds the input's storage
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(List.of(scene.graph, scene.out, scene.stream))).isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void the_runtime_closed_while_a_stream_records_then_end_capture_is_refused_and_everything_closes_after()
                throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
                scene.runtime.close();
                assertThatThrownBy(recording.stream()::endCapture).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
                assertThat(CloseOrderScene.closeAll(List.of(recording.scratch(), scene.graph, scene.in,
                        recording.stream(), scene.out, scene.stream))).isNull();
                scene.assertBuffersAndGraphClosed();
                assertThat(recording.scratch().isClosed()).isTrue();
            });
        }

        @Test
        void the_runtime_closed_while_a_stream_warms_up_then_cancel_capture_is_refused() throws Exception {
            inFreshRuntimes(scene -> {
                GpuStream warming = scene.runtime.openStream();
                warming.prepare();
                Buffer primed = warming.allocate(64);
                scene.runtime.close();
                assertThatThrownBy(warming::cancelCapture).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
                assertThat(warming.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
                assertThat(CloseOrderScene.closeAll(List.of(primed, warming, scene.stream, scene.graph, scene.in,
                        scene.out))).isNull();
                assertThat(primed.isClosed()).isTrue();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void a_stream_closed_while_it_records_then_its_buffer_then_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
                recording.stream().close();
                assertThat(recording.stream().captureState()).isEqualTo(CaptureState.NO_CAPTURE);
                assertThatThrownBy(recording.stream()::endCapture).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
                recording.scratch().close();
                scene.graph.replay();
                assertThat(scene.stream.readInts(scene.out)).as("the scene's own stream still replays")
                        .isEqualTo(KitKernels.addOne(scene.input));
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(scene.buffersAndGraph())).isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void the_runtime_closed_by_another_thread_while_this_one_records() throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
                assertThat(CloseOrderScene.onAnotherThread("runtime-closer", scene.runtime::close))
                        .as("closing the runtime from another thread").isNull();
                assertThatThrownBy(recording.stream()::endCapture).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
                assertThat(CloseOrderScene.closeAll(List.of(recording.stream(), recording.scratch(), scene.stream,
                        scene.graph, scene.in, scene.out))).isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void buffers_graph_and_streams_closed_by_another_thread_after_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
                scene.runtime.close();
                List<AutoCloseable> all = List.of(scene.graph, recording.scratch(), scene.in, scene.out,
                        recording.stream(), scene.stream);
                assertThat(CloseOrderScene.onAnotherThread("closer", () -> {
                    Throwable failure = CloseOrderScene.closeAll(all);
                    if (failure != null) {
                        throw new AssertionError("closing on another thread failed", failure);
                    }
                })).isNull();
                scene.assertBuffersAndGraphClosed();
                assertThat(recording.scratch().isClosed()).isTrue();
            });
        }

        @Test
        void buffers_and_the_graph_closed_by_another_thread_while_this_one_closes_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                scene.replayPending();
                AtomicReference<Throwable> closerFailure = new AtomicReference<>();
                Thread closer = new Thread(() -> closerFailure.set(
                        CloseOrderScene.closeAll(CloseOrderScene.reversed(scene.buffersAndGraph()))), "racing-closer");
                closer.start();
                scene.runtime.close();
                closer.join();
                assertThat(closerFailure.get()).as("the racing closer").isNull();
                assertThat(CloseOrderScene.closeAll(List.of(scene.stream))).isNull();
                scene.assertBuffersAndGraphClosed();
            });
        }

        @Test
        void streams_with_work_pending_closed_by_two_threads_at_once_then_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                GpuStream second = scene.runtime.openStream();
                Buffer doubled = second.allocate(CloseOrderScene.N * 4L);
                for (int i = 0; i < 20; i++) {
                    CloseOrderScene.launch(second, scene.mulTwo, scene.in, doubled);
                }
                second.flush();
                scene.replayPending();
                AtomicReference<Throwable> otherFailure = new AtomicReference<>();
                Thread other = new Thread(() -> otherFailure.set(CloseOrderScene.closeAll(List.of(second))),
                        "second-stream-closer");
                other.start();
                Throwable mine = CloseOrderScene.closeAll(List.of(scene.stream));
                other.join();
                assertThat(mine).as("closing the first stream").isNull();
                assertThat(otherFailure.get()).as("closing the second stream on another thread").isNull();
                assertThat(CloseOrderScene.closeAll(List.of(doubled, scene.graph, scene.in, scene.out))).isNull();
                scene.runtime.close();
                scene.assertBuffersAndGraphClosed();
                assertThat(doubled.isClosed()).isTrue();
            });
        }

        @Test
        void every_resource_and_the_runtime_closed_twice_before_and_after_the_runtime() throws Exception {
            inFreshRuntimes(scene -> {
                CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
                List<AutoCloseable> all = List.of(scene.graph, scene.in, recording.scratch(), scene.out,
                        scene.stream);
                assertThat(CloseOrderScene.closeAll(all)).as("before the runtime").isNull();
                assertThat(CloseOrderScene.closeAll(all)).as("again before the runtime").isNull();
                scene.runtime.close();
                scene.runtime.close();
                assertThat(CloseOrderScene.closeAll(all)).as("after the runtime").isNull();
                assertThat(CloseOrderScene.closeAll(List.of(recording.stream(), recording.stream()))).isNull();
                scene.assertBuffersAndGraphClosed();
                assertThat(recording.scratch().isClosed()).isTrue();
            });
        }
    }

    // ---- 22 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("22. Checked mode")
    class CheckedMode {
        @Test
        void a_kernel_writing_past_its_buffer_is_named_in_checked_mode_or_the_backend_keeps_it_inside() {
            GraphRuntime checked = openRuntime(true);
            try (checked; GpuStream s = checked.openStream()) {
                assertThat(checked.capabilities()).isNotNull();
                Kernel overrun = checked.compile(KitKernels.OVERRUN);
                Buffer src = s.upload(KitKernels.pattern(16, 3));
                Buffer small = s.allocate(64);
                Buffer neighbour = s.upload(KitKernels.pattern(64, 4));
                s.launch(overrun, LaunchDims.linear(48, BLOCK), KernelArgs.of(src, small).info(16, 48));
                Throwable failure = catchThrowable(s::synchronize);
                if (failure instanceof dev.graphrt.api.BufferOverrunException named) {
                    assertThat(named.buffer()).isEqualTo(small.toString());
                    assertThat(named.offset()).as("the first byte past its end").isEqualTo(64);
                    assertThat(named.lastLaunches()).anyMatch(launch -> launch.startsWith("overrun"));
                } else if (failure != null) {
                    assertThat(failure).as("a backend that stops the write fails the kernel")
                            .isInstanceOf(dev.graphrt.api.GraphRTException.class);
                } else {
                    assertThat(s.readInts(small)).as("the backend kept the writes inside the buffer")
                            .containsOnly(7);
                }
                assertThat(s.readInts(neighbour)).as("the guard kept the neighbour intact")
                        .isEqualTo(KitKernels.pattern(64, 4));
                assertThatCode(s::synchronize).as("an overrun is reported once").doesNotThrowAnyException();
            }
        }
    }

    // ---- 20 -----------------------------------------------------------------------------------------

    @Nested
    @DisplayName("20. Launch arguments")
    class LaunchArguments {
        /** The one refusal every backend gives, pinned word for word (the kit kernels take (src, dst, info)). */
        private static String refusal(String kernel, int buffers, boolean info) {
            int passed = buffers + (info ? 1 : 0);
            return "kernel '" + kernel + "' takes 3 parameters, but the launch passes " + passed + ": " + buffers
                    + " buffer" + (buffers == 1 ? "" : "s") + (info ? " + the info buffer" : ", no info buffer")
                    + " (buffers in order, then the info buffer when the launch has info words; docs/kernels.md)";
        }

        private void assertRefused(GpuStream s, KernelArgs args, String message) {
            assertThatThrownBy(() -> s.launch(addOne, DIMS, args))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
        }

        @Test
        void too_few_buffers_are_refused_at_the_call_naming_the_kernel_and_both_counts_and_nothing_runs() {
            int[] x = KitKernels.pattern(N, 201);
            Buffer in = upload(x);
            Buffer out = poisoned();

            assertRefused(stream, KernelArgs.of(in).info(N), refusal("add_one", 1, true));

            assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
            launch(stream, addOne, in, out);
            assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void too_many_buffers_are_refused_rather_than_read_as_the_info_buffer() {
            int[] x = KitKernels.pattern(N, 202);
            Buffer in = upload(x);
            Buffer out = poisoned();
            Buffer extra = upload(KitKernels.pattern(N, 203));

            assertRefused(stream, KernelArgs.of(in, out, extra).info(N), refusal("add_one", 3, true));

            assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
            launch(stream, addOne, in, out);
            assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void the_right_buffers_without_the_info_buffer_are_refused() {
            int[] x = KitKernels.pattern(N, 204);
            Buffer in = upload(x);
            Buffer out = poisoned();

            assertRefused(stream, KernelArgs.of(in, out), refusal("add_one", 2, false));

            assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
            launch(stream, addOne, in, out);
            assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void a_refusal_inside_a_capture_records_nothing_and_leaves_the_capture_usable() {
            int[] x = KitKernels.pattern(N, 205);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer out = poisoned();
            stream.prepare();
            stream.beginCapture();

            launch(stream, addOne, in, mid);
            assertRefused(stream, KernelArgs.of(in).info(N), refusal("add_one", 1, true));
            assertRefused(stream, KernelArgs.of(mid, out, in).info(N), refusal("add_one", 3, true));
            assertThat(stream.captureState()).as("still recording").isEqualTo(CaptureState.CAPTURE);
            launch(stream, mulTwo, mid, out);
            Graph graph = track(stream.endCapture());

            graph.replay();
            assertThat(read(out)).as("the graph holds the accepted launches only")
                    .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            assertRecapturable();
        }
    }

    // ---- 23 -----------------------------------------------------------------------------------------

    /**
     * A live graph changed in place (issue 15): {@code update} re-records the step, {@code rebind} swaps a buffer.
     * Declared ({@code GRAPH_UPDATE}): the next replay computes the new results exactly, a different shape is
     * rejected naming the node, and replays enqueued before a change still run the old graph. Undeclared: both
     * are refused with {@code UnsupportedCapabilityException} and the graph replays as before.
     */
    @Nested
    @DisplayName("23. Graph update")
    class GraphUpdate {
        private static final int HALF = N / 2 + 3;

        /** One ping-pong launch over the first {@code n} elements, with {@code step} as its second info word. */
        private void pingPong(GpuStream s, Buffer src, Buffer dst, int n, int step) {
            s.launch(CaptureConformanceKit.this.pingPong, LaunchDims.linear(n, BLOCK),
                    KernelArgs.of(src, dst).info(n, step));
        }

        /** The host model of two ping-pong launches over the first {@code n} elements; poison beyond. */
        private int[] twoSteps(int[] x, int n, int first, int second) {
            int[] y = KitKernels.pingPong(KitKernels.pingPong(x, first), second);
            int[] expected = KitKernels.poison(N);
            System.arraycopy(y, 0, expected, 0, n);
            return expected;
        }

        /**
         * Where GRAPH_UPDATE is not declared: an update and a rebind of {@code graph} are refused, naming the
         * capability, and the stream can still capture; returns whether that branch ran.
         */
        private boolean refusedAsUndeclared(Graph graph, Buffer from, Buffer to) {
            if (declares(Capability.GRAPH_UPDATE)) {
                return false;
            }
            assertThatThrownBy(() -> graph.update(s -> launch(s, addOne, from, to)))
                    .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("GRAPH_UPDATE");
            assertThatThrownBy(() -> graph.rebind(from, to)).isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("GRAPH_UPDATE");
            assertRecapturable();
            return true;
        }

        @Test
        void an_update_with_new_info_words_and_new_dims_gives_the_new_results_or_is_unsupported() {
            int[] x = KitKernels.pattern(N, 301);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer out = poisoned();
            Graph graph = capture(s -> {
                pingPong(s, in, mid, HALF, 5);
                pingPong(s, mid, out, HALF, 6);
            });
            graph.replay();
            assertThat(read(out)).as("the captured graph").isEqualTo(twoSteps(x, HALF, 5, 6));
            if (!declares(Capability.GRAPH_UPDATE)) {
                assertThatThrownBy(() -> graph.update(s -> pingPong(s, in, out, N, 7)))
                        .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("GRAPH_UPDATE");
                assertThatThrownBy(() -> graph.rebind(in, mid)).isInstanceOf(UnsupportedCapabilityException.class);
                stream.write(out, KitKernels.poison(N));
                graph.replay();
                assertThat(read(out)).as("the graph is unchanged").isEqualTo(twoSteps(x, HALF, 5, 6));
                return;
            }
            int[] y = KitKernels.pattern(N, 302);
            Buffer fresh = stream.upload(y); // used only by the new recording, and closed by its user at once

            UpdateResult result = graph.update(s -> {
                pingPong(s, fresh, mid, N, 7);
                pingPong(s, mid, out, N, 8);
            });
            fresh.close();

            assertThat(result).as("an update of the same shape").isInstanceOf(UpdateResult.Applied.class);
            assertThat(result.applied()).isTrue();
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("new dims and info words, and a buffer the graph retains")
                    .isEqualTo(twoSteps(y, N, 7, 8));
            graph.replay();
            assertThat(read(out)).as("again").isEqualTo(twoSteps(y, N, 7, 8));
            assertThat(graph.info().nodeCount()).as("two launches, as before").isEqualTo(2 * capture(s -> pingPong(s, in, out, N, 1)).info().nodeCount());
        }

        @Test
        void a_different_shape_is_rejected_naming_the_first_differing_node_and_the_old_graph_still_replays() {
            int[] x = KitKernels.pattern(N, 311);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer out = poisoned();
            Graph graph = capture(s -> {
                launch(s, addOne, in, mid);
                launch(s, mulTwo, mid, out);
            });
            if (refusedAsUndeclared(graph, in, mid)) {
                return;
            }

            UpdateResult longer = graph.update(s -> {
                launch(s, addOne, in, mid);
                launch(s, mulTwo, mid, out);
                launch(s, addOne, out, mid);
            });
            UpdateResult otherKernel = graph.update(s -> {
                launch(s, mulTwo, in, mid);
                launch(s, mulTwo, mid, out);
            });

            assertThat(longer).isInstanceOfSatisfying(UpdateResult.Rejected.class, r -> {
                assertThat(r.difference()).isEqualTo(UpdateResult.Difference.TOPOLOGY);
                assertThat(r.nodeIndex()).isEqualTo(2);
                assertThat(r.kernel()).isEqualTo("add_one");
                assertThat(r.graphId()).isEqualTo(graph.id());
            });
            assertThat(otherKernel).isInstanceOfSatisfying(UpdateResult.Rejected.class, r -> {
                assertThat(r.difference()).isEqualTo(UpdateResult.Difference.KERNEL);
                assertThat(r.nodeIndex()).isEqualTo(0);
                assertThat(r.kernel()).isEqualTo("mul_two");
                assertThat(r.reason()).contains("add_one");
            });
            assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            graph.replay();
            assertThat(read(out)).as("the old graph").isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            assertRecapturable();
        }

        @Test
        void after_a_rebind_the_next_replay_reads_and_writes_the_new_buffers_and_bad_rebinds_change_nothing() {
            int[] x = KitKernels.pattern(N, 321);
            int[] y = KitKernels.pattern(N, 322);
            Buffer in = upload(x);
            Buffer out = poisoned();
            Buffer other = stream.upload(y);
            Buffer otherOut = poisoned();
            int[] z = KitKernels.pattern(N, 324);
            Buffer side = upload(z);
            Buffer sideOut = poisoned();
            Graph graph = capture(s -> {
                launch(s, addOne, in, out);
                launch(s, mulTwo, side, sideOut); // another node, which no rebind below touches
            });
            if (refusedAsUndeclared(graph, in, other)) {
                other.close();
                return;
            }

            assertThat(graph.rebind(in, other)).as("launches patched").isEqualTo(1);
            other.close(); // the graph retains it
            stream.write(sideOut, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("reads the new input").isEqualTo(KitKernels.addOne(y));
            assertThat(read(sideOut)).as("the other node is unchanged").isEqualTo(KitKernels.mulTwo(z));
            graph.rebind(out, otherOut);
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(otherOut)).as("writes the new output").isEqualTo(KitKernels.addOne(y));
            assertThat(read(out)).as("and not the old one").isEqualTo(KitKernels.poison(N));

            Buffer shorter = upload(KitKernels.pattern(N - 1, 323));
            Buffer closed = stream.upload(x);
            closed.close();
            Buffer unused = poisoned();
            assertThatThrownBy(() -> graph.rebind(otherOut, shorter)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("to:").hasMessageContaining("size");
            assertThatThrownBy(() -> graph.rebind(otherOut, closed)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("to:").hasMessageContaining("closed");
            assertThatThrownBy(() -> graph.rebind(unused, in)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("from:").hasMessageContaining("not an argument");
            try (GraphRuntime elsewhere = openRuntime(); GpuStream s = elsewhere.openStream();
                 Buffer foreign = s.upload(x)) {
                assertThatThrownBy(() -> graph.rebind(otherOut, foreign)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("to:").hasMessageContaining("another runtime");
            }
            stream.write(otherOut, KitKernels.poison(N));
            graph.replay();
            assertThat(read(otherOut)).as("refused rebinds changed nothing").isEqualTo(KitKernels.addOne(y));
        }

        @Test
        void an_update_or_a_rebind_issued_while_a_replay_is_pending_is_ordered_after_that_replay() {
            int[] x = KitKernels.pattern(N, 331);
            int[] y = KitKernels.pattern(N, 332);
            Buffer in = upload(x);
            Buffer other = upload(y);
            Buffer out = poisoned();
            Graph graph = capture(s -> pingPong(s, in, out, N, 11));
            if (refusedAsUndeclared(graph, in, other)) {
                return;
            }

            graph.replay(); // pending: no sync before the update
            // The update's warm-up runs its step eagerly, so it writes elsewhere: out keeps what the replay wrote.
            Buffer elsewhere = poisoned();
            assertThat(graph.update(s -> pingPong(s, in, elsewhere, N, 12)).applied()).isTrue();
            assertThat(read(out)).as("the replay before the update ran the old graph")
                    .isEqualTo(KitKernels.pingPong(x, 11));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            graph.rebind(in, other); // with that replay pending
            assertThat(read(elsewhere)).as("the replay before the rebind read the old input")
                    .isEqualTo(KitKernels.pingPong(x, 12));
            graph.replay();
            assertThat(read(out)).as("no replay after the update writes the old output")
                    .isEqualTo(KitKernels.poison(N));
            assertThat(read(elsewhere)).as("the replay after both").isEqualTo(KitKernels.pingPong(y, 12));
        }
    }

    // ---- 24 -----------------------------------------------------------------------------------------

    /**
     * Events order work across the streams of one runtime outside capture (issue 16): a stream that waits for
     * another's event sees all of that stream's work before it, exactly, whatever ran first.
     */
    @Nested
    @DisplayName("24. Events")
    class Events {
        private static final int CHAIN = 200;
        /**
         * The chain's length in words: long enough that its 200 launches take far longer on the device than the
         * host takes to enqueue them, so a waiting stream that does not wait reads a half-done chain every round.
         */
        private static final int LONG = 1 << 18;
        private static final LaunchDims LONG_DIMS = LaunchDims.linear(LONG, BLOCK);

        /** {@code CHAIN} ping-pong launches of {@code LONG} words between a and b on {@code s}; returns a's model. */
        private int[] longChain(GpuStream s, Buffer a, Buffer b, int[] x) {
            int[] model = x;
            for (int i = 0; i < CHAIN; i++) {
                boolean forward = i % 2 == 0;
                s.launch(pingPong, LONG_DIMS, KernelArgs.of(forward ? a : b, forward ? b : a).info(LONG, i));
                model = KitKernels.pingPong(model, i);
            }
            return model; // CHAIN is even: the last launch wrote a
        }

        @Test
        void a_stream_waiting_for_another_streams_event_runs_after_all_that_streams_earlier_work() {
            try (GpuStream other = runtime.openStream()) {
                for (int round = 0; round < 3; round++) {
                    int[] x = KitKernels.pattern(LONG, 240 + round);
                    Buffer a = upload(x);
                    Buffer b = upload(KitKernels.poison(LONG));
                    Buffer out = track(other.upload(KitKernels.poison(N)));
                    stream.synchronize();

                    int[] expected = longChain(stream, a, b, x);
                    StreamEvent done = stream.record();
                    other.waitFor(done);
                    launch(other, addOne, a, out);

                    assertThat(other.readInts(out)).as("round %d: the waiting stream saw the whole chain", round)
                            .isEqualTo(KitKernels.addOne(Arrays.copyOf(expected, N)));
                    done.await();
                    assertThat(done.isComplete()).isTrue();
                }
            }
        }

        @Test
        void an_event_of_another_runtime_is_refused_and_one_of_the_same_stream_needs_no_wait() {
            int[] x = KitKernels.pattern(N, 250);
            Buffer in = upload(x);
            Buffer out = poisoned();
            try (GraphRuntime elsewhere = openRuntime(); GpuStream foreign = elsewhere.openStream()) {
                StreamEvent theirs = foreign.record();
                assertThatThrownBy(() -> stream.waitFor(theirs)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("event").hasMessageContaining("another runtime");
            }
            launch(stream, addOne, in, out);
            stream.waitFor(stream.record());
            assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
        }

        @Test
        void recording_or_waiting_while_the_stream_records_needs_multi_stream_capture() {
            int[] x = KitKernels.pattern(N, 251);
            Buffer in = upload(x);
            Buffer out = poisoned();
            try (GpuStream other = runtime.openStream()) {
                StreamEvent before = other.record();
                stream.prepare();
                stream.beginCapture();
                if (!declares(Capability.MULTI_STREAM_CAPTURE)) {
                    assertThatThrownBy(stream::record).isInstanceOf(UnsupportedCapabilityException.class)
                            .hasMessageContaining("MULTI_STREAM_CAPTURE");
                    assertThatThrownBy(() -> stream.waitFor(before))
                            .isInstanceOf(UnsupportedCapabilityException.class);
                } else {
                    StreamEvent inside = stream.record();
                    assertThatThrownBy(inside::isComplete).as("a capture event marks a point in the graph")
                            .isInstanceOf(IllegalStateException.class);
                    assertThatThrownBy(() -> stream.waitFor(before)).as("an event from outside the capture")
                            .isInstanceOf(CaptureRejectedException.class);
                }
                assertThat(stream.captureState()).as("the capture is intact").isEqualTo(CaptureState.CAPTURE);
                launch(stream, addOne, in, out);
                Graph graph = track(stream.endCapture());
                graph.replay();
                assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
            }
        }
    }

    // ---- 25 -----------------------------------------------------------------------------------------

    /**
     * One capture across streams (issue 16): a stream that waits for an event recorded in a capture joins it, its
     * work goes into the same graph, and it must be joined back before the capture ends. Declared
     * ({@code MULTI_STREAM_CAPTURE}): a diamond replays exactly, every time, and an unjoined end is refused naming the
     * stream while the capture stays intact. Undeclared: group 24 shows record() inside a capture is refused.
     */
    @Nested
    @DisplayName("25. Fork/join capture")
    class ForkJoin {
        @Test
        void a_diamond_forked_to_two_streams_and_joined_back_replays_exactly_every_time() {
            Assumptions.assumeTrue(declares(Capability.MULTI_STREAM_CAPTURE),
                    "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
            int[] x = KitKernels.pattern(N, 260);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer left = poisoned();
            Buffer right = poisoned();
            Buffer out = poisoned();
            try (GpuStream b = runtime.openStream(); GpuStream c = runtime.openStream()) {
                stream.prepare();
                stream.beginCapture();
                launch(stream, addOne, in, mid);
                StreamEvent fork = stream.record();
                b.waitFor(fork);
                c.waitFor(fork);
                assertThat(b.captureState()).as("b joined the capture").isEqualTo(CaptureState.CAPTURE);
                launch(b, mulTwo, mid, left);
                launch(c, pingPong, mid, right, 9);
                stream.waitFor(b.record());
                stream.waitFor(c.record());
                launch(stream, addOne, left, out);
                Graph graph = track(stream.endCapture());
                assertThat(b.captureState()).as("b left it").isEqualTo(CaptureState.NO_CAPTURE);
                assertThat(read(out)).as("the capture ran nothing").containsOnly(KitKernels.POISON);

                int[] mids = KitKernels.addOne(x);
                for (int replay = 0; replay < 3; replay++) {
                    stream.write(left, KitKernels.poison(N));
                    stream.write(right, KitKernels.poison(N));
                    stream.write(out, KitKernels.poison(N));
                    graph.replay();
                    assertThat(read(left)).as("branch b, replay %d", replay).isEqualTo(KitKernels.mulTwo(mids));
                    assertThat(read(right)).as("branch c").isEqualTo(KitKernels.pingPong(mids, 9));
                    assertThat(read(out)).as("after the join").isEqualTo(KitKernels.addOne(KitKernels.mulTwo(mids)));
                }
                Buffer eager = track(b.upload(KitKernels.poison(N)));
                launch(b, addOne, in, eager);
                assertThat(b.readInts(eager)).as("b works eagerly again").isEqualTo(KitKernels.addOne(x));
            }
        }

        @Test
        void an_unjoined_end_is_refused_naming_the_stream_and_joining_then_ending_succeeds() {
            Assumptions.assumeTrue(declares(Capability.MULTI_STREAM_CAPTURE),
                    "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
            int[] x = KitKernels.pattern(N, 261);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer side = poisoned();
            try (GpuStream b = runtime.openStream()) {
                stream.prepare();
                stream.beginCapture();
                launch(stream, addOne, in, mid);
                b.waitFor(stream.record());
                launch(b, mulTwo, mid, side);

                assertThatThrownBy(b::synchronize).as("b records: no host sync")
                        .isInstanceOf(CaptureRejectedException.class);
                assertThatThrownBy(b::endCapture).as("only the origin ends it").isInstanceOf(GraphStateException.class);
                assertThatThrownBy(stream::endCapture).isInstanceOf(CaptureRejectedException.class)
                        .hasMessageContaining("stream #" + b.id()).hasMessageContaining("not joined back");
                assertThat(stream.captureState()).as("the capture is intact").isEqualTo(CaptureState.CAPTURE);

                stream.waitFor(b.record());
                Graph graph = track(stream.endCapture());
                graph.replay();
                assertThat(read(side)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
            }
            assertRecapturable();
        }

        @Test
        void a_capture_cancelled_with_a_stream_still_joined_leaves_both_streams_usable() {
            Assumptions.assumeTrue(declares(Capability.MULTI_STREAM_CAPTURE),
                    "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
            int[] x = KitKernels.pattern(N, 262);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            try (GpuStream b = runtime.openStream()) {
                stream.prepare();
                stream.beginCapture();
                b.waitFor(stream.record());
                launch(b, mulTwo, in, mid);
                stream.cancelCapture();

                assertThat(b.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
                assertThat(read(mid)).as("nothing ran").containsOnly(KitKernels.POISON);
                launch(b, mulTwo, in, mid);
                assertThat(b.readInts(mid)).as("b works eagerly again").isEqualTo(KitKernels.mulTwo(x));
            }
            assertRecapturable();
        }
    }

    // ---- 26 -----------------------------------------------------------------------------------------

    /**
     * Graphs of one {@code GraphPool} share their intermediates (issue 17): a temporary a smaller graph of the pool
     * allocates lives in a larger graph's closed temporary, both replay exactly in any order, a capture into the pool
     * on another stream is refused, and closing one graph of the pool breaks neither the other nor a new buffer.
     */
    @Nested
    @DisplayName("26. Graph pools")
    class Pools {
        private static final int SMALL = N / 2;

        /** out = (in + 1) * 2 over the first n elements, through a temporary allocated and closed in the step. */
        private Consumer<GpuStream> withTemporary(Buffer in, Buffer out, int n) {
            return s -> {
                try (Buffer temp = s.allocate(n * 4L)) {
                    s.launch(addOne, LaunchDims.linear(n, BLOCK), KernelArgs.of(in, temp).info(n));
                    s.launch(mulTwo, LaunchDims.linear(n, BLOCK), KernelArgs.of(temp, out).info(n));
                }
            };
        }

        private int[] expected(int[] x, int n) {
            int[] y = KitKernels.mulTwo(KitKernels.addOne(x));
            int[] result = KitKernels.poison(N);
            System.arraycopy(y, 0, result, 0, n);
            return result;
        }

        private long used() {
            stream.synchronize();
            return runtime.memoryStats().inUseBytes();
        }

        @Test
        void a_smaller_graph_of_the_pool_shares_the_larger_ones_temporary_and_both_replay_exactly() {
            int[] x = KitKernels.pattern(N, 270);
            Buffer in = upload(x);
            Buffer bigOut = poisoned();
            Buffer smallOut = poisoned();
            Buffer alone = poisoned();
            try (GraphPool pool = runtime.graphPool()) {
                CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
                Graph big = track(stream.capture(pooled, withTemporary(in, bigOut, N)));
                long beforeSmall = used();
                Graph small = track(stream.capture(pooled, withTemporary(in, smallOut, SMALL)));
                long pooledCost = used() - beforeSmall;
                Graph unpooled = track(stream.capture(CaptureOptions.defaults(), withTemporary(in, alone, SMALL)));
                long unpooledCost = used() - beforeSmall - pooledCost;

                assertThat(unpooledCost).as("a small graph of its own allocates its temporary")
                        .isGreaterThanOrEqualTo(SMALL * 4L);
                assertThat(pooledCost).as("the pooled small graph's temporary is the big graph's (at most its info "
                        + "words are new)").isLessThan(SMALL * 4L);
                assertThat(runtime.memoryStats().sharedPerPool().get(pool.id())).as("the pool's shared memory: the "
                        + "big temporary, once").isGreaterThanOrEqualTo(BYTES).isLessThan(BYTES + SMALL * 4L);
                for (int round = 0; round < 3; round++) {
                    stream.write(bigOut, KitKernels.poison(N));
                    stream.write(smallOut, KitKernels.poison(N));
                    big.replay();
                    small.replay();
                    assertThat(read(bigOut)).as("big, round %d", round).isEqualTo(expected(x, N));
                    assertThat(read(smallOut)).as("small, round %d", round).isEqualTo(expected(x, SMALL));
                    small.replay();
                    big.replay();
                    assertThat(read(bigOut)).isEqualTo(expected(x, N));
                }
                unpooled.replay();
                assertThat(read(alone)).isEqualTo(expected(x, SMALL));
            }
        }

        @Test
        void a_capture_into_the_pool_on_another_stream_is_refused_naming_the_pool() {
            Buffer in = upload(KitKernels.pattern(N, 271));
            Buffer out = poisoned();
            try (GraphPool pool = runtime.graphPool(); GpuStream other = runtime.openStream()) {
                track(stream.capture(CaptureOptions.defaults().pool(pool), withTemporary(in, out, N)));
                assertThatThrownBy(() -> other.capture(CaptureOptions.defaults().pool(pool), withTemporary(in, out, N)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("graph pool #" + pool.id())
                        .hasMessageContaining("stream #" + stream.id());
                assertThat(other.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            }
            assertRecapturable();
        }

        @Test
        void closing_the_graph_whose_temporary_another_graph_shares_breaks_neither_that_graph_nor_a_new_buffer() {
            int[] x = KitKernels.pattern(N, 272);
            Buffer in = upload(x);
            Buffer bigOut = poisoned();
            Buffer smallOut = poisoned();
            try (GraphPool pool = runtime.graphPool()) {
                CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
                Graph big = stream.capture(pooled, withTemporary(in, bigOut, N));
                Graph small = track(stream.capture(pooled, withTemporary(in, smallOut, SMALL)));
                big.replay();
                big.close();
                stream.synchronize();
                int[] pattern = KitKernels.pattern(N, 273);
                Buffer fresh = upload(pattern); // must not get the temporary small still uses

                small.replay();
                assertThat(read(smallOut)).isEqualTo(expected(x, SMALL));
                assertThat(read(fresh)).as("no replay writes into a new buffer").isEqualTo(pattern);
            }
        }
    }

    /**
     * The model-based group (DESIGN.md section 12): random sequences of public calls against a plain-Java model of
     * every buffer, refusal and statistic; a failure prints its seed and the shrunk sequence as Java calls.
     */
    @Nested
    @DisplayName("28. Seams model")
    class SeamsModel extends SeamsModelGroup {
        @Override
        protected GraphRuntime openRuntime(boolean checked) {
            return CaptureConformanceKit.this.openRuntime(checked);
        }
    }

    @Nested
    @DisplayName("27. Copies")
    class Copies {
        private static final String COPY_THROUGH_HOST = "read and upload through the host";

        @Test
        void a_copy_carries_every_word_in_stream_order_and_leaves_the_rest_of_a_larger_dst_untouched() {
            int[] x = KitKernels.pattern(N, 280);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer dst = track(stream.upload(KitKernels.poison(2 * N)));
            Buffer out = poisoned();

            launch(stream, addOne, in, mid);
            stream.copy(mid, dst);
            launch(stream, mulTwo, dst, out);

            int[] expected = KitKernels.poison(2 * N);
            System.arraycopy(KitKernels.addOne(x), 0, expected, 0, N);
            assertThat(read(dst)).as("the copy ran after the launch before it").isEqualTo(expected);
            assertThat(read(out)).as("the launch after the copy read what it copied")
                    .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        }

        @Test
        void a_dst_too_small_or_the_same_buffer_twice_is_refused_naming_it_and_nothing_changes() {
            int[] x = KitKernels.pattern(N, 281);
            Buffer src = upload(x);
            Buffer small = track(stream.upload(KitKernels.poison(N - 1)));

            assertThatThrownBy(() -> stream.copy(src, small)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("dst");
            assertThatThrownBy(() -> stream.copy(src, src)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("same buffer");
            assertThat(read(small)).isEqualTo(KitKernels.poison(N - 1));
            assertThat(read(src)).isEqualTo(x);
        }

        @Test
        void closing_src_right_after_the_copy_still_copies_it_whole_and_no_new_buffer_takes_its_memory_early() {
            int[] x = KitKernels.pattern(N, 282);
            Buffer in = upload(x);
            Buffer src = poisoned();
            Buffer dst = poisoned();
            for (int i = 0; i < 20; i++) { // work ahead of the copy, so it is still queued when src closes
                launch(stream, addOne, i % 2 == 0 ? in : src, i % 2 == 0 ? src : in);
            }
            int[] want = read(src); // the result of the chain, then run it again behind the copy
            for (int i = 0; i < 20; i++) {
                launch(stream, addOne, i % 2 == 0 ? in : src, i % 2 == 0 ? src : in);
            }
            stream.copy(src, dst);
            src.close();
            GpuStream other = track(runtime.openStream()); // not ordered after the copy: it races it without a hold
            Buffer reuse = track(other.upload(KitKernels.poison(N)));

            int[] expected = want.clone();
            for (int i = 0; i < expected.length; i++) {
                expected[i] += 20;
            }
            assertThat(read(dst)).as("the copy read src after the queued launches, before anything reused it")
                    .isEqualTo(expected);
            assertThat(other.readInts(reuse)).isEqualTo(KitKernels.poison(N));
        }

        @Test
        void a_copy_while_recording_replays_with_the_graph_on_hardware_graphs_and_is_refused_at_end_capture_on_software() {
            int[] x = KitKernels.pattern(N, 283);
            Buffer in = upload(x);
            Buffer mid = poisoned();
            Buffer dst = poisoned();
            if (runtime.graphKind() == GraphKind.HARDWARE) {
                Graph graph = capture(s -> {
                    launch(s, addOne, in, mid);
                    s.copy(mid, dst);
                });
                int[] next = KitKernels.pattern(N, 284);
                stream.write(in, next);
                graph.replay();
                assertThat(read(dst)).as("the replay copied again").isEqualTo(KitKernels.addOne(next));
            } else {
                assertThatThrownBy(() -> capture(s -> {
                    launch(s, addOne, in, mid);
                    s.copy(mid, dst);
                })).isInstanceOf(CaptureRejectedException.class).hasMessageContaining("copy");
                assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
                stream.copy(in, dst);
                assertThat(read(dst)).as("the stream copies again after the refused capture").isEqualTo(x);
            }
        }

        @Test
        void a_rebind_leaves_a_recorded_copy_on_its_buffer_and_keeps_that_buffer_held_after_its_user_closes_it() {
            int[] x = KitKernels.pattern(N, 287);
            Buffer in = stream.upload(x); // closed by the test below, not tracked
            Buffer mid = poisoned();
            Buffer dst = poisoned();
            Buffer swapped = upload(KitKernels.pattern(N, 288));
            Consumer<GpuStream> step = s -> {
                launch(s, addOne, in, mid);
                s.copy(in, dst);
            };
            if (runtime.graphKind() != GraphKind.HARDWARE) {
                assertThatThrownBy(() -> capture(step)).as("a software graph cannot hold the copy")
                        .isInstanceOf(CaptureRejectedException.class).hasMessageContaining("copy");
                in.close();
                return;
            }
            Graph graph = capture(step);
            if (!declares(Capability.GRAPH_UPDATE)) {
                assertThatThrownBy(() -> graph.rebind(in, swapped)).isInstanceOf(UnsupportedCapabilityException.class);
                in.close();
                return;
            }

            assertThat(graph.rebind(in, swapped)).as("the launch is patched").isEqualTo(1);
            in.close();
            GpuStream other = track(runtime.openStream());
            Buffer reuse = track(other.upload(KitKernels.poison(N)));
            other.synchronize();
            graph.replay();

            assertThat(read(mid)).as("the launch reads the new buffer").isEqualTo(KitKernels.addOne(
                    KitKernels.pattern(N, 288)));
            assertThat(read(dst)).as("the copy still reads the closed buffer, which the graph keeps").isEqualTo(x);
            assertThat(other.readInts(reuse)).isEqualTo(KitKernels.poison(N));
        }

        @Test
        void a_copy_between_two_runtimes_of_the_backend_is_exact_in_both_directions_or_refused_naming_the_way_round() {
            int[] x = KitKernels.pattern(N, 285);
            int[] y = KitKernels.pattern(N, 286);
            Buffer ours = upload(y);
            Buffer back = poisoned();
            try (GraphRuntime elsewhere = openRuntime(); GpuStream foreign = elsewhere.openStream();
                 Buffer theirs = foreign.upload(x); Buffer theirsOut = foreign.upload(KitKernels.poison(N))) {
                foreign.synchronize();
                try {
                    stream.copy(theirs, back);
                } catch (IllegalArgumentException refused) {
                    assertThat(copiesBetweenRuntimes()).as("this backend declares copies between its runtimes, but "
                            + "refused one: %s", refused.getMessage()).isFalse();
                    assertThat(refused).hasMessageContaining(COPY_THROUGH_HOST);
                    assertThat(read(back)).as("a refused copy changes nothing").isEqualTo(KitKernels.poison(N));
                    return;
                }
                assertThat(read(back)).as("copied from the other runtime").isEqualTo(x);
                stream.copy(ours, theirsOut);
                assertThat(foreign.readInts(theirsOut)).as("copied into the other runtime").isEqualTo(y);
            }
        }
    }
}
