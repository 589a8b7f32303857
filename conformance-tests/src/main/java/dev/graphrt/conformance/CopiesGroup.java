package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.UnsupportedCapabilityException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@code GpuStream.copy}: exact and in stream order, refused naming a bad argument, a source closed right after
 * still copied whole, recorded by hardware graphs and refused at endCapture by software ones, kept on its buffer
 * by a rebind, and between two runtimes exact or refused naming the way through the host
 * ({@link CaptureConformanceKit#copiesBetweenRuntimes()}).
 *
 * <p>Group 27 of {@link CaptureConformanceKit}.
 */
public abstract class CopiesGroup extends KitFixture {
    private static final String COPY_THROUGH_HOST = "read and upload through the host";

    @Test
    void a_copy_carries_every_word_in_stream_order_and_leaves_the_rest_of_a_larger_dst_untouched() {
        int[] x = KitKernels.pattern(N, 280);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer dst = track(stream.upload(KitKernels.poison(2 * N)));
        Buffer out = poisoned();

        launch(stream, addOne, in, mid);
        stream.copy(mid, dst);
        launch(stream, mulTwo, dst, out);

        int[] expected = KitKernels.poison(2 * N);
        System.arraycopy(KitKernels.addOne(x), 0, expected, 0, N);
        assertThat(read(dst)).as("the copy ran after the launch before it").isEqualTo(expected);
        assertThat(read(out))
                .as("the launch after the copy read what it copied")
                .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
    }

    @Test
    void a_dst_too_small_or_the_same_buffer_twice_is_refused_naming_it_and_nothing_changes() {
        int[] x = KitKernels.pattern(N, 281);
        Buffer src = upload(x);
        Buffer small = track(stream.upload(KitKernels.poison(N - 1)));

        assertThatThrownBy(() -> stream.copy(src, small))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dst");
        assertThatThrownBy(() -> stream.copy(src, src))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same buffer");
        assertThat(read(small)).isEqualTo(KitKernels.poison(N - 1));
        assertThat(read(src)).isEqualTo(x);
    }

    @Test
    void closing_src_right_after_the_copy_still_copies_it_whole_and_no_new_buffer_takes_its_memory_early() {
        int[] x = KitKernels.pattern(N, 282);
        Buffer in = upload(x);
        Buffer src = poisoned();
        Buffer dst = poisoned();
        for (int i = 0; i < 20; i++) { // work ahead of the copy, so it is still queued when src closes
            launch(stream, addOne, i % 2 == 0 ? in : src, i % 2 == 0 ? src : in);
        }
        int[] want = read(src); // the result of the chain, then run it again behind the copy
        for (int i = 0; i < 20; i++) {
            launch(stream, addOne, i % 2 == 0 ? in : src, i % 2 == 0 ? src : in);
        }
        stream.copy(src, dst);
        src.close();
        GpuStream other = track(runtime.openStream()); // not ordered after the copy: it races it without a hold
        Buffer reuse = track(other.upload(KitKernels.poison(N)));

        int[] expected = want.clone();
        for (int i = 0; i < expected.length; i++) {
            expected[i] += 20;
        }
        assertThat(read(dst))
                .as("the copy read src after the queued launches, before anything reused it")
                .isEqualTo(expected);
        assertThat(other.readInts(reuse)).isEqualTo(KitKernels.poison(N));
    }

    @Test
    void a_copy_while_recording_replays_with_the_graph_on_hardware_graphs_and_is_refused_at_end_capture_on_software() {
        int[] x = KitKernels.pattern(N, 283);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer dst = poisoned();
        if (runtime.graphKind() == GraphKind.HARDWARE) {
            Graph graph = capture(s -> {
                launch(s, addOne, in, mid);
                s.copy(mid, dst);
            });
            int[] next = KitKernels.pattern(N, 284);
            stream.write(in, next);
            graph.replay();
            assertThat(read(dst)).as("the replay copied again").isEqualTo(KitKernels.addOne(next));
        } else {
            assertThatThrownBy(() -> capture(s -> {
                        launch(s, addOne, in, mid);
                        s.copy(mid, dst);
                    }))
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("copy");
            assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
            stream.copy(in, dst);
            assertThat(read(dst))
                    .as("the stream copies again after the refused capture")
                    .isEqualTo(x);
        }
    }

    @Test
    void a_rebind_leaves_a_recorded_copy_on_its_buffer_and_keeps_that_buffer_held_after_its_user_closes_it() {
        int[] x = KitKernels.pattern(N, 287);
        Buffer in = stream.upload(x); // closed by the test below, not tracked
        Buffer mid = poisoned();
        Buffer dst = poisoned();
        Buffer swapped = upload(KitKernels.pattern(N, 288));
        Consumer<GpuStream> step = s -> {
            launch(s, addOne, in, mid);
            s.copy(in, dst);
        };
        if (runtime.graphKind() != GraphKind.HARDWARE) {
            assertThatThrownBy(() -> capture(step))
                    .as("a software graph cannot hold the copy")
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("copy");
            in.close();
            return;
        }
        Graph graph = capture(step);
        if (!declares(Capability.GRAPH_UPDATE)) {
            assertThatThrownBy(() -> graph.rebind(in, swapped)).isInstanceOf(UnsupportedCapabilityException.class);
            in.close();
            return;
        }

        assertThat(graph.rebind(in, swapped)).as("the launch is patched").isEqualTo(1);
        in.close();
        GpuStream other = track(runtime.openStream());
        Buffer reuse = track(other.upload(KitKernels.poison(N)));
        other.synchronize();
        graph.replay();

        assertThat(read(mid))
                .as("the launch reads the new buffer")
                .isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 288)));
        assertThat(read(dst))
                .as("the copy still reads the closed buffer, which the graph keeps")
                .isEqualTo(x);
        assertThat(other.readInts(reuse)).isEqualTo(KitKernels.poison(N));
    }

    @Test
    void a_copy_between_two_runtimes_of_the_backend_is_exact_in_both_directions_or_refused_naming_the_way_round() {
        int[] x = KitKernels.pattern(N, 285);
        int[] y = KitKernels.pattern(N, 286);
        Buffer ours = upload(y);
        Buffer back = poisoned();
        try (GraphRuntime elsewhere = openRuntime();
                GpuStream foreign = elsewhere.openStream();
                Buffer theirs = foreign.upload(x);
                Buffer theirsOut = foreign.upload(KitKernels.poison(N))) {
            foreign.synchronize();
            try {
                stream.copy(theirs, back);
            } catch (IllegalArgumentException refused) {
                assertThat(copiesBetweenRuntimes())
                        .as(
                                "this backend declares copies between its runtimes, but " + "refused one: %s",
                                refused.getMessage())
                        .isFalse();
                assertThat(refused).hasMessageContaining(COPY_THROUGH_HOST);
                assertThat(read(back)).as("a refused copy changes nothing").isEqualTo(KitKernels.poison(N));
                return;
            }
            assertThat(read(back)).as("copied from the other runtime").isEqualTo(x);
            stream.copy(ours, theirsOut);
            assertThat(foreign.readInts(theirsOut))
                    .as("copied into the other runtime")
                    .isEqualTo(y);
        }
    }
}
