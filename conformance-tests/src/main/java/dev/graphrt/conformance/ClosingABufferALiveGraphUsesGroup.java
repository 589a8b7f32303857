package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A buffer its user closes while a live graph uses it is retained by the graph: replays still read its bytes,
 * later allocations never share its memory, and closing the graph releases it.
 *
 * <p>Group 16 of {@link CaptureConformanceKit}.
 */
public abstract class ClosingABufferALiveGraphUsesGroup extends KitFixture {
    @Test
    void the_graph_still_replays_right_and_no_later_allocation_is_overwritten() {
        int[] x = KitKernels.pattern(N, 41);
        Buffer in = stream.upload(x);
        Buffer mid = stream.allocate(BYTES);
        Buffer out = poisoned();
        Graph graph = capture(s -> {
            launch(s, mulTwo, in, mid);
            launch(s, addOne, mid, out);
        });
        in.close();
        mid.close();
        assertThat(in.isClosed()).isTrue();
        assertThat(runtime.memoryStats().retainedByGraphsBytes())
                .as("the graph retains in and mid")
                .isGreaterThanOrEqualTo(2 * BYTES);
        List<Buffer> later = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            Buffer buffer = track(stream.allocate(BYTES));
            stream.write(buffer, marker(i));
            later.add(buffer);
        }
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        graph.replay();
        assertThat(read(out))
                .as("the closed input's bytes still feed the graph")
                .isEqualTo(KitKernels.addOne(KitKernels.mulTwo(x)));
        for (int i = 0; i < later.size(); i++) {
            assertThat(read(later.get(i)))
                    .as("buffer %d allocated after the close", i)
                    .isEqualTo(marker(i));
        }
        assertThatThrownBy(() -> launch(stream, addOne, in, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("args.buffers[0]")
                .hasMessageContaining("closed");
        graph.close();
        stream.synchronize();
        assertThat(runtime.memoryStats().retainedByGraphsBytes())
                .as("nothing retained once it is closed")
                .isZero();
    }
}
