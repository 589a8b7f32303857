package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Closing buffers, graphs and streams after their runtime, in any order, twice and from another thread, does
 * nothing; a call that needs the runtime is refused as closed.
 *
 * <p>Group 18 of {@link CaptureConformanceKit}.
 */
public abstract class ClosingAfterTheRuntimeGroup extends KitFixture {
    @Test
    void buffers_graphs_and_streams_closed_after_the_runtime_in_any_order_and_from_another_thread_are_no_ops()
            throws Exception {
        int[] x = KitKernels.pattern(N, 45);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(BYTES);
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, out));
        GpuStream other = runtime.openStream();
        Buffer elsewhere = other.upload(x);
        graph.replay(); // still pending when the runtime closes
        stream.prepare();
        stream.beginCapture(); // and this stream records
        launch(stream, mulTwo, in, out);

        runtime.close();

        List<AutoCloseable> order = List.of(elsewhere, graph, other, in, stream, out);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread closer = new Thread(
                () -> {
                    try {
                        for (int i = order.size() - 1; i >= 0; i -= 2) {
                            order.get(i).close();
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                "closer");
        closer.start();
        for (int i = 0; i < order.size(); i += 2) {
            order.get(i).close();
        }
        closer.join();
        assertThat(failure.get()).as("closing from another thread").isNull();
        for (AutoCloseable resource : order) {
            resource.close(); // twice, in yet another order
        }
        assertThat(in.isClosed()).isTrue();
        assertThat(out.isClosed()).isTrue();
        assertThat(elsewhere.isClosed()).isTrue();
        assertThat(graph.isClosed()).isTrue();
        assertThatThrownBy(stream::endCapture)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(graph::replay).isInstanceOf(IllegalStateException.class);
    }
}
