package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Closing a graph right after enqueueing its replay does not free memory the replay still uses: buffers
 * allocated after the close, and written from another stream, stay intact.
 *
 * <p>Group 9 of {@link CaptureConformanceKit}.
 */
public abstract class DestroyDuringReplayGroup extends KitFixture {
    @Test
    void closing_a_graph_right_after_its_replay_does_not_release_memory_the_replay_still_uses() {
        // The sentinels are written from a second stream, which does not wait for this one: only the
        // fence behind the close keeps the replay's temporaries out of their way.
        int[] x = KitKernels.pattern(N, 17);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Consumer<GpuStream> step = s -> {
            try (Buffer t1 = s.allocate(BYTES);
                    Buffer t2 = s.allocate(BYTES)) {
                launch(s, addOne, in, t1);
                for (int k = 0; k < 40; k++) {
                    launch(s, k % 2 == 0 ? addOne : mulTwo, k % 2 == 0 ? t1 : t2, k % 2 == 0 ? t2 : t1);
                }
                launch(s, mulTwo, t1, out);
            }
        };
        Graph graph = stream.capture(CaptureOptions.defaults(), step);
        GpuStream writer = track(runtime.openStream());
        graph.replay();
        graph.close();
        stream.prepare();
        List<Buffer> sentinels = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Buffer sentinel = track(stream.allocate(BYTES));
            writer.write(sentinel, marker(i));
            sentinels.add(sentinel);
        }
        writer.synchronize();
        int[] expected = KitKernels.addOne(x);
        for (int k = 0; k < 40; k++) {
            expected = k % 2 == 0 ? KitKernels.addOne(expected) : KitKernels.mulTwo(expected);
        }
        assertThat(read(out)).isEqualTo(KitKernels.mulTwo(expected));
        for (int i = 0; i < 8; i++) {
            assertThat(read(sentinels.get(i))).isEqualTo(marker(i));
        }
        stream.cancelCapture();
        assertThatThrownBy(graph::replay).isInstanceOf(IllegalStateException.class);
    }
}
