package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A capture records only its own stream: another thread working on another stream of the runtime while this one
 * records runs eagerly and leaves nothing in this graph.
 *
 * <p>Group 10 of {@link CaptureConformanceKit}.
 */
public abstract class IsolationGroup extends KitFixture {
    @Test
    void another_thread_works_on_its_own_stream_while_this_one_records() throws Exception {
        int[] x = KitKernels.pattern(N, 18);
        int[] y = KitKernels.pattern(N, 19);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        GpuStream other = track(runtime.openStream());
        stream.prepare();
        stream.beginCapture();
        launch(stream, addOne, in, mid);
        AtomicReference<Object> seen = new AtomicReference<>();
        Thread worker = new Thread(
                () -> {
                    try (Buffer a = other.upload(y);
                            Buffer b = other.allocate(BYTES)) {
                        launch(other, mulTwo, a, b);
                        seen.set(other.readInts(b));
                    } catch (Throwable failure) {
                        seen.set(failure);
                    }
                },
                "isolation-worker");
        worker.start();
        worker.join();
        launch(stream, mulTwo, mid, out);
        Graph graph = track(stream.endCapture());
        assertThat(seen.get()).as("stream B's own result").isEqualTo(KitKernels.mulTwo(y));
        assertThat(graph.info().nodeCount())
                .as("A's graph holds only A's launches")
                .isEqualTo(2);
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
    }
}
