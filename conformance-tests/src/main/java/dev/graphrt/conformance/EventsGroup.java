package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UnsupportedCapabilityException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Events order work across the streams of one runtime outside capture (issue 16): a stream that waits for
 * another's event sees all of that stream's work before it, exactly, whatever ran first.
 *
 * <p>Group 24 of {@link CaptureConformanceKit}.
 */
public abstract class EventsGroup extends KitFixture {
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
            s.launch(
                    pingPong,
                    LONG_DIMS,
                    KernelArgs.of(forward ? a : b, forward ? b : a).info(LONG, i));
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

                assertThat(other.readInts(out))
                        .as("round %d: the waiting stream saw the whole chain", round)
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
        try (GraphRuntime elsewhere = openRuntime();
                GpuStream foreign = elsewhere.openStream()) {
            StreamEvent theirs = foreign.record();
            assertThatThrownBy(() -> stream.waitFor(theirs))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("event")
                    .hasMessageContaining("another runtime");
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
                assertThatThrownBy(stream::record)
                        .isInstanceOf(UnsupportedCapabilityException.class)
                        .hasMessageContaining("MULTI_STREAM_CAPTURE");
                assertThatThrownBy(() -> stream.waitFor(before)).isInstanceOf(UnsupportedCapabilityException.class);
            } else {
                StreamEvent inside = stream.record();
                assertThatThrownBy(inside::isComplete)
                        .as("a capture event marks a point in the graph")
                        .isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(() -> stream.waitFor(before))
                        .as("an event from outside the capture")
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
