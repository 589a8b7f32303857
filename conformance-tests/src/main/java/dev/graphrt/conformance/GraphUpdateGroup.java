package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.api.UpdateResult;
import org.junit.jupiter.api.Test;

/**
 * A live graph changed in place (issue 15): {@code update} re-records the step, {@code rebind} swaps a buffer.
 * Declared ({@code GRAPH_UPDATE}): the next replay computes the new results exactly, a different shape is
 * rejected naming the node, and replays enqueued before a change still run the old graph. Undeclared: both
 * are refused with {@code UnsupportedCapabilityException} and the graph replays as before.
 *
 * <p>Group 23 of {@link CaptureConformanceKit}.
 */
public abstract class GraphUpdateGroup extends KitFixture {
    private static final int HALF = N / 2 + 3;

    /** One ping-pong launch over the first {@code n} elements, with {@code step} as its second info word. */
    private void pingPong(GpuStream s, Buffer src, Buffer dst, int n, int step) {
        s.launch(
                this.pingPong,
                LaunchDims.linear(n, BLOCK),
                KernelArgs.of(src, dst).info(n, step));
    }

    /** The host model of two ping-pong launches over the first {@code n} elements; poison beyond. */
    private int[] twoSteps(int[] x, int n, int first, int second) {
        int[] y = KitKernels.pingPong(KitKernels.pingPong(x, first), second);
        int[] expected = KitKernels.poison(N);
        System.arraycopy(y, 0, expected, 0, n);
        return expected;
    }

    /**
     * Where GRAPH_UPDATE is not declared: an update and a rebind of {@code graph} are refused, naming the
     * capability, and the stream can still capture; returns whether that branch ran.
     */
    private boolean refusedAsUndeclared(Graph graph, Buffer from, Buffer to) {
        if (declares(Capability.GRAPH_UPDATE)) {
            return false;
        }
        assertThatThrownBy(() -> graph.update(s -> launch(s, addOne, from, to)))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("GRAPH_UPDATE");
        assertThatThrownBy(() -> graph.rebind(from, to))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("GRAPH_UPDATE");
        assertRecapturable();
        return true;
    }

    @Test
    void an_update_with_new_info_words_and_new_dims_gives_the_new_results_or_is_unsupported() {
        int[] x = KitKernels.pattern(N, 301);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        Graph graph = capture(s -> {
            pingPong(s, in, mid, HALF, 5);
            pingPong(s, mid, out, HALF, 6);
        });
        graph.replay();
        assertThat(read(out)).as("the captured graph").isEqualTo(twoSteps(x, HALF, 5, 6));
        if (!declares(Capability.GRAPH_UPDATE)) {
            assertThatThrownBy(() -> graph.update(s -> pingPong(s, in, out, N, 7)))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("GRAPH_UPDATE");
            assertThatThrownBy(() -> graph.rebind(in, mid)).isInstanceOf(UnsupportedCapabilityException.class);
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("the graph is unchanged").isEqualTo(twoSteps(x, HALF, 5, 6));
            return;
        }
        int[] y = KitKernels.pattern(N, 302);
        Buffer fresh = stream.upload(y); // used only by the new recording, and closed by its user at once

        UpdateResult result = graph.update(s -> {
            pingPong(s, fresh, mid, N, 7);
            pingPong(s, mid, out, N, 8);
        });
        fresh.close();

        assertThat(result).as("an update of the same shape").isInstanceOf(UpdateResult.Applied.class);
        assertThat(result.applied()).isTrue();
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        assertThat(read(out))
                .as("new dims and info words, and a buffer the graph retains")
                .isEqualTo(twoSteps(y, N, 7, 8));
        graph.replay();
        assertThat(read(out)).as("again").isEqualTo(twoSteps(y, N, 7, 8));
        assertThat(graph.info().nodeCount())
                .as("two launches, as before")
                .isEqualTo(2 * capture(s -> pingPong(s, in, out, N, 1)).info().nodeCount());
    }

    @Test
    void a_different_shape_is_rejected_naming_the_first_differing_node_and_the_old_graph_still_replays() {
        int[] x = KitKernels.pattern(N, 311);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        Graph graph = capture(s -> {
            launch(s, addOne, in, mid);
            launch(s, mulTwo, mid, out);
        });
        if (refusedAsUndeclared(graph, in, mid)) {
            return;
        }

        UpdateResult longer = graph.update(s -> {
            launch(s, addOne, in, mid);
            launch(s, mulTwo, mid, out);
            launch(s, addOne, out, mid);
        });
        UpdateResult otherKernel = graph.update(s -> {
            launch(s, mulTwo, in, mid);
            launch(s, mulTwo, mid, out);
        });

        assertThat(longer).isInstanceOfSatisfying(UpdateResult.Rejected.class, r -> {
            assertThat(r.difference()).isEqualTo(UpdateResult.Difference.TOPOLOGY);
            assertThat(r.nodeIndex()).isEqualTo(2);
            assertThat(r.kernel()).isEqualTo("add_one");
            assertThat(r.graphId()).isEqualTo(graph.id());
        });
        assertThat(otherKernel).isInstanceOfSatisfying(UpdateResult.Rejected.class, r -> {
            assertThat(r.difference()).isEqualTo(UpdateResult.Difference.KERNEL);
            assertThat(r.nodeIndex()).isEqualTo(0);
            assertThat(r.kernel()).isEqualTo("mul_two");
            assertThat(r.reason()).contains("add_one");
        });
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        graph.replay();
        assertThat(read(out)).as("the old graph").isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        assertRecapturable();
    }

    @Test
    void after_a_rebind_the_next_replay_reads_and_writes_the_new_buffers_and_bad_rebinds_change_nothing() {
        int[] x = KitKernels.pattern(N, 321);
        int[] y = KitKernels.pattern(N, 322);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Buffer other = stream.upload(y);
        Buffer otherOut = poisoned();
        int[] z = KitKernels.pattern(N, 324);
        Buffer side = upload(z);
        Buffer sideOut = poisoned();
        Graph graph = capture(s -> {
            launch(s, addOne, in, out);
            launch(s, mulTwo, side, sideOut); // another node, which no rebind below touches
        });
        if (refusedAsUndeclared(graph, in, other)) {
            other.close();
            return;
        }

        assertThat(graph.rebind(in, other)).as("launches patched").isEqualTo(1);
        other.close(); // the graph retains it
        stream.write(sideOut, KitKernels.poison(N));
        graph.replay();
        assertThat(read(out)).as("reads the new input").isEqualTo(KitKernels.addOne(y));
        assertThat(read(sideOut)).as("the other node is unchanged").isEqualTo(KitKernels.mulTwo(z));
        graph.rebind(out, otherOut);
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        assertThat(read(otherOut)).as("writes the new output").isEqualTo(KitKernels.addOne(y));
        assertThat(read(out)).as("and not the old one").isEqualTo(KitKernels.poison(N));

        Buffer shorter = upload(KitKernels.pattern(N - 1, 323));
        Buffer closed = stream.upload(x);
        closed.close();
        Buffer unused = poisoned();
        assertThatThrownBy(() -> graph.rebind(otherOut, shorter))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("to:")
                .hasMessageContaining("size");
        assertThatThrownBy(() -> graph.rebind(otherOut, closed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("to:")
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> graph.rebind(unused, in))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from:")
                .hasMessageContaining("not an argument");
        try (GraphRuntime elsewhere = openRuntime();
                GpuStream s = elsewhere.openStream();
                Buffer foreign = s.upload(x)) {
            assertThatThrownBy(() -> graph.rebind(otherOut, foreign))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("to:")
                    .hasMessageContaining("another runtime");
        }
        stream.write(otherOut, KitKernels.poison(N));
        graph.replay();
        assertThat(read(otherOut)).as("refused rebinds changed nothing").isEqualTo(KitKernels.addOne(y));
    }

    @Test
    void an_update_or_a_rebind_issued_while_a_replay_is_pending_is_ordered_after_that_replay() {
        int[] x = KitKernels.pattern(N, 331);
        int[] y = KitKernels.pattern(N, 332);
        Buffer in = upload(x);
        Buffer other = upload(y);
        Buffer out = poisoned();
        Graph graph = capture(s -> pingPong(s, in, out, N, 11));
        if (refusedAsUndeclared(graph, in, other)) {
            return;
        }

        graph.replay(); // pending: no sync before the update
        // The update's warm-up runs its step eagerly, so it writes elsewhere: out keeps what the replay wrote.
        Buffer elsewhere = poisoned();
        assertThat(graph.update(s -> pingPong(s, in, elsewhere, N, 12)).applied())
                .isTrue();
        assertThat(read(out))
                .as("the replay before the update ran the old graph")
                .isEqualTo(KitKernels.pingPong(x, 11));
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        graph.rebind(in, other); // with that replay pending
        assertThat(read(elsewhere))
                .as("the replay before the rebind read the old input")
                .isEqualTo(KitKernels.pingPong(x, 12));
        graph.replay();
        assertThat(read(out))
                .as("no replay after the update writes the old output")
                .isEqualTo(KitKernels.poison(N));
        assertThat(read(elsewhere)).as("the replay after both").isEqualTo(KitKernels.pingPong(y, 12));
    }
}
