package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * A graph reads its inputs when it replays: new bytes written into a captured input change the next replay.
 *
 * <p>Group 3 of {@link CaptureConformanceKit}.
 */
public abstract class InputRewriteGroup extends KitFixture {
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
