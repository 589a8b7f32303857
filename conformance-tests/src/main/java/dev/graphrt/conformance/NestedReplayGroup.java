package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * A replay inside a capture window is recorded as a child graph where {@code NESTED_GRAPHS} is declared (its work
 * runs on every replay of the parent); otherwise endCapture refuses it naming the graph, and none of it ran.
 *
 * <p>Group 15 of {@link CaptureConformanceKit}.
 */
public abstract class NestedReplayGroup extends KitFixture {
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
            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("replay of graph #" + inner.id())
                    .hasMessageContaining("NESTED_GRAPHS");
            assertThat(read(mid)).as("the refused replay did not run").containsOnly(KitKernels.POISON);
            inner.replay();
            assertThat(read(mid)).as("the inner graph still replays").isEqualTo(KitKernels.addOne(x));
            assertUsableAfterARefusedCapture(in, out, x);
        }
    }
}
