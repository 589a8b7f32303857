package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * No close order crashes the process or leaves it unsound (issue 13 §2: on the H200 one order killed the JVM
 * in a driver thread). Each order runs in {@value #ROUNDS} fresh runtimes opened one after another through
 * the kit's hook; each fresh runtime first proves it computes exactly, so it also checks the order before it,
 * and one more fresh runtime checks the last. So each order (each test below) opens {@value #ROUNDS} + 1 runtimes
 * besides the fixture's own, which stays open throughout and must still capture and replay at the end.
 *
 * <p>Group 19 of {@link CaptureConformanceKit}.
 */
public abstract class CloseOrdersGroup extends KitFixture {
    private static final int ROUNDS = 2;
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
        assertThat(CloseOrderScene.closeAll(List.of(next.graph, next.in, next.out, next.stream)))
                .isNull();
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
            assertThatThrownBy(() -> scene.stream.allocate(16))
                    .isInstanceOf(IllegalStateException.class)
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
            assertThat(CloseOrderScene.closeAll(List.of(scene.stream)))
                    .as("the stream, after")
                    .isNull();
            scene.assertBuffersAndGraphClosed();
        });
    }

    @Test
    void a_buffer_the_graph_uses_closed_first_then_a_replay_left_pending_when_the_runtime_closes() throws Exception {
        inFreshRuntimes(scene -> {
            scene.in.close();
            assertThat(scene.in.isClosed()).isTrue();
            scene.replayPending(); // the graph still holds the input's storage
            scene.runtime.close();
            assertThat(CloseOrderScene.closeAll(List.of(scene.graph, scene.out, scene.stream)))
                    .isNull();
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
            assertThatThrownBy(recording.stream()::endCapture)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThat(CloseOrderScene.closeAll(List.of(
                            recording.scratch(), scene.graph, scene.in, recording.stream(), scene.out, scene.stream)))
                    .isNull();
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
            assertThatThrownBy(warming::cancelCapture)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThat(warming.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            assertThat(CloseOrderScene.closeAll(
                            List.of(primed, warming, scene.stream, scene.graph, scene.in, scene.out)))
                    .isNull();
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
            assertThatThrownBy(recording.stream()::endCapture)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            recording.scratch().close();
            scene.graph.replay();
            assertThat(scene.stream.readInts(scene.out))
                    .as("the scene's own stream still replays")
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
                    .as("closing the runtime from another thread")
                    .isNull();
            assertThatThrownBy(recording.stream()::endCapture)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThat(CloseOrderScene.closeAll(List.of(
                            recording.stream(), recording.scratch(), scene.stream, scene.graph, scene.in, scene.out)))
                    .isNull();
            scene.assertBuffersAndGraphClosed();
        });
    }

    @Test
    void buffers_graph_and_streams_closed_by_another_thread_after_the_runtime() throws Exception {
        inFreshRuntimes(scene -> {
            scene.replayPending();
            CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
            scene.runtime.close();
            List<AutoCloseable> all =
                    List.of(scene.graph, recording.scratch(), scene.in, scene.out, recording.stream(), scene.stream);
            assertThat(CloseOrderScene.onAnotherThread("closer", () -> {
                        Throwable failure = CloseOrderScene.closeAll(all);
                        if (failure != null) {
                            throw new AssertionError("closing on another thread failed", failure);
                        }
                    }))
                    .isNull();
            scene.assertBuffersAndGraphClosed();
            assertThat(recording.scratch().isClosed()).isTrue();
        });
    }

    @Test
    void buffers_and_the_graph_closed_by_another_thread_while_this_one_closes_the_runtime() throws Exception {
        inFreshRuntimes(scene -> {
            scene.replayPending();
            AtomicReference<Throwable> closerFailure = new AtomicReference<>();
            Thread closer = new Thread(
                    () -> closerFailure.set(
                            CloseOrderScene.closeAll(CloseOrderScene.reversed(scene.buffersAndGraph()))),
                    "racing-closer");
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
            Thread other = new Thread(
                    () -> otherFailure.set(CloseOrderScene.closeAll(List.of(second))), "second-stream-closer");
            other.start();
            Throwable mine = CloseOrderScene.closeAll(List.of(scene.stream));
            other.join();
            assertThat(mine).as("closing the first stream").isNull();
            assertThat(otherFailure.get())
                    .as("closing the second stream on another thread")
                    .isNull();
            assertThat(CloseOrderScene.closeAll(List.of(doubled, scene.graph, scene.in, scene.out)))
                    .isNull();
            scene.runtime.close();
            scene.assertBuffersAndGraphClosed();
            assertThat(doubled.isClosed()).isTrue();
        });
    }

    @Test
    void every_resource_and_the_runtime_closed_twice_before_and_after_the_runtime() throws Exception {
        inFreshRuntimes(scene -> {
            CloseOrderScene.Recording recording = scene.recordOnAnotherStream();
            List<AutoCloseable> all = List.of(scene.graph, scene.in, recording.scratch(), scene.out, scene.stream);
            assertThat(CloseOrderScene.closeAll(all)).as("before the runtime").isNull();
            assertThat(CloseOrderScene.closeAll(all))
                    .as("again before the runtime")
                    .isNull();
            scene.runtime.close();
            scene.runtime.close();
            assertThat(CloseOrderScene.closeAll(all)).as("after the runtime").isNull();
            assertThat(CloseOrderScene.closeAll(List.of(recording.stream(), recording.stream())))
                    .isNull();
            scene.assertBuffersAndGraphClosed();
            assertThat(recording.scratch().isClosed()).isTrue();
        });
    }
}
