package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.Graph;
import dev.graphrt.api.UnsupportedCapabilityException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Capture modes: in {@code THREAD_LOCAL} a launch from another thread is refused naming that thread; {@code RELAXED}
 * records it where {@code CAPTURE_MODE_RELAXED} is declared and is otherwise refused at beginCapture.
 *
 * <p>Group 12 of {@link CaptureConformanceKit}.
 */
public abstract class ThreadConfinementGroup extends KitFixture {
    private Throwable launchFromAnotherThread(Buffer in, Buffer out) throws InterruptedException {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread intruder = new Thread(
                () -> {
                    try {
                        launch(stream, mulTwo, in, out);
                    } catch (Throwable failure) {
                        seen.set(failure);
                    }
                },
                "intruder");
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
        assertThat(launchFromAnotherThread(in, out))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("intruder")
                .hasMessageContaining("RELAXED");
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
            assertThatThrownBy(() -> stream.beginCapture(relaxed))
                    .isInstanceOf(UnsupportedCapabilityException.class)
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
