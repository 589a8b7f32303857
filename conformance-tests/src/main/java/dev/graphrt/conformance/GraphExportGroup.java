package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * {@code toDot} renders one node per recorded launch, named by its kernel; without {@code DOT_EXPORT} the core's
 * own rendering does.
 *
 * <p>Group 14 of {@link CaptureConformanceKit}.
 */
public abstract class GraphExportGroup extends KitFixture {
    @Test
    void to_dot_names_one_node_per_recorded_launch() {
        Buffer a = upload(KitKernels.pattern(N, 25));
        Buffer b = poisoned();
        Graph graph = capture(s -> {
            launch(s, addOne, a, b);
            launch(s, mulTwo, b, a);
            launch(s, addOne, a, b);
        });
        String dot = graph.toDot();
        assertThat(dot).contains("digraph").contains("add_one").contains("mul_two");
        assertThat(graph.info().nodeCount()).isEqualTo(3);
        if (!declares(Capability.DOT_EXPORT)) {
            assertThat(dot.lines().filter(line -> line.contains("[shape=box")).count())
                    .as("the core's rendering: one node per launch")
                    .isEqualTo(3);
        }
    }
}
