package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphStateException;
import org.junit.jupiter.api.Test;

/**
 * The capture lifecycle follows its state table: every call from every state either moves the stream as the
 * table says or is refused with {@code GraphStateException} naming the call and changing nothing, and a cancel,
 * a step that throws or any refused call leaves the stream able to capture again.
 *
 * <p>Group 1 of {@link CaptureConformanceKit}.
 */
public abstract class LifecycleOrderGroup extends KitFixture {
    /** Brings the stream from NO_CAPTURE to {@code state} through the lawful calls. */
    private void reach(CaptureState state) {
        if (state != CaptureState.NO_CAPTURE) {
            stream.prepare();
        }
        if (state == CaptureState.CAPTURE) {
            stream.beginCapture();
        }
    }

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
                    assertThat(thrown)
                            .as("%s from %s", call, from)
                            .isInstanceOf(GraphStateException.class)
                            .hasMessageContaining(call);
                    assertThat(stream.captureState())
                            .as("%s from %s changed nothing", call, from)
                            .isEqualTo(from);
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
                    }))
                    .isSameAs(boom);
            assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        }
        assertRecapturable();
    }

    @Test
    void the_stream_can_capture_again_after_each_kind_of_failure() {
        Buffer in = upload(KitKernels.pattern(N, 4));
        Buffer out = poisoned();
        assertThatThrownBy(stream::beginCapture)
                .as("beginCapture before prepare")
                .isInstanceOf(GraphStateException.class);
        stream.prepare();
        assertThatThrownBy(stream::prepare).as("prepare twice").isInstanceOf(GraphStateException.class);
        stream.cancelCapture();
        assertThatThrownBy(() -> stream.capture(CaptureOptions.defaults(), s -> {
                    throw new IllegalArgumentException("user bug");
                }))
                .as("the step's own failure")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("user bug");
        stream.prepare();
        stream.beginCapture();
        assertThatThrownBy(() -> read(out))
                .as("a host read while recording")
                .isInstanceOf(CaptureRejectedException.class);
        launch(stream, addOne, in, out);
        track(stream.endCapture());
        assertRecapturable();
    }
}
