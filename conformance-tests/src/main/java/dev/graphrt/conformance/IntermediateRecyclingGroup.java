package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A temporary the step closes inside the capture window stays the graph's: no later allocation, eager or in
 * another window, is handed its memory while the graph lives.
 *
 * <p>Group 4 of {@link CaptureConformanceKit}.
 */
public abstract class IntermediateRecyclingGroup extends KitFixture {
    @Test
    void a_temporary_closed_inside_the_window_is_never_handed_to_a_later_allocation() {
        int[] x = KitKernels.pattern(N, 9);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Graph graph = capture(s -> {
            try (Buffer temp = s.allocate(BYTES)) {
                launch(s, addOne, in, temp);
                launch(s, mulTwo, temp, out);
            }
        });
        List<Buffer> sentinels = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Buffer sentinel = track(stream.allocate(BYTES));
            stream.write(sentinel, marker(i));
            sentinels.add(sentinel);
        }
        stream.prepare();
        for (int i = 0; i < 8; i++) {
            Buffer sentinel = track(stream.allocate(BYTES));
            stream.write(sentinel, marker(8 + i));
            sentinels.add(sentinel);
        }
        stream.cancelCapture();
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        for (int i = 0; i < sentinels.size(); i++) {
            assertThat(read(sentinels.get(i))).as("sentinel %d untouched", i).isEqualTo(marker(i));
        }
    }
}
