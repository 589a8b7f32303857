package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * Several graphs captured on one stream replay independently, interleaved in any order, and closing one leaves
 * the others working.
 *
 * <p>Group 11 of {@link CaptureConformanceKit}.
 */
public abstract class SeveralGraphsGroup extends KitFixture {
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
