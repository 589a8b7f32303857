package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.StreamEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * One capture across streams (issue 16): a stream that waits for an event recorded in a capture joins it, its
 * work goes into the same graph, and it must be joined back before the capture ends. Declared
 * ({@code MULTI_STREAM_CAPTURE}): a diamond replays exactly, every time, and an unjoined end is refused naming the
 * stream while the capture stays intact. Undeclared: group 24 shows record() inside a capture is refused.
 *
 * <p>Group 25 of {@link CaptureConformanceKit}.
 */
public abstract class ForkJoinGroup extends KitFixture {
    @Test
    void a_diamond_forked_to_two_streams_and_joined_back_replays_exactly_every_time() {
        Assumptions.assumeTrue(
                declares(Capability.MULTI_STREAM_CAPTURE),
                "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
        int[] x = KitKernels.pattern(N, 260);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer left = poisoned();
        Buffer right = poisoned();
        Buffer out = poisoned();
        try (GpuStream b = runtime.openStream();
                GpuStream c = runtime.openStream()) {
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
        Assumptions.assumeTrue(
                declares(Capability.MULTI_STREAM_CAPTURE),
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

            assertThatThrownBy(b::synchronize)
                    .as("b records: no host sync")
                    .isInstanceOf(CaptureRejectedException.class);
            assertThatThrownBy(b::endCapture).as("only the origin ends it").isInstanceOf(GraphStateException.class);
            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("stream #" + b.id())
                    .hasMessageContaining("not joined back");
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
        Assumptions.assumeTrue(
                declares(Capability.MULTI_STREAM_CAPTURE),
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
