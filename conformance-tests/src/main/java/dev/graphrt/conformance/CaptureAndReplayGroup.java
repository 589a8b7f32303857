package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * A graph replays what was recorded, exactly: the recorded pass runs nothing, and every replay, the first or the
 * hundredth, gives the result of running its launches eagerly.
 *
 * <p>Group 2 of {@link CaptureConformanceKit}.
 */
public abstract class CaptureAndReplayGroup extends KitFixture {
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
