package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * A long recording with metadata per launch: 150 ping-pong launches, each reading its length and step from its
 * own info words, replay the host model's state; the warm-up runs and is readable, the recorded pass is not run.
 *
 * <p>Group 5 of {@link CaptureConformanceKit}.
 */
public abstract class ManyLaunchesGroup extends KitFixture {
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
