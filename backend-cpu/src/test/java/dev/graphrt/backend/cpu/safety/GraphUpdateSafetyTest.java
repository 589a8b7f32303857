package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Hook;
import dev.graphrt.conformance.KitKernels;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Who holds what across {@code Graph.update} and {@code Graph.rebind}: what only the old recording used is freed
 * once the replays that used it are done, a refused change leaves the memory as it was, and a failing backend
 * hook leaves the graph replaying its old recording.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphUpdateSafetyTest {

    @Test
    void a_buffer_only_the_old_recording_used_is_freed_after_the_update_and_the_graph_keeps_its_id() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 1);
            Buffer old = stream.upload(x);
            Buffer fresh = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, old, out));
            old.close(); // the graph still holds it
            stream.synchronize();
            long inUseBefore = rig.runtime.memoryStats().inUseBytes();

            UpdateResult result = graph.update(s -> Rig.launch(s, rig.addOne, fresh, out));
            stream.synchronize();

            assertThat(result.applied()).isTrue();
            MemoryStats after = rig.runtime.memoryStats();
            assertThat(after.inUseBytes())
                    .as("the old input went back to the pool")
                    .isLessThanOrEqualTo(inUseBefore - BYTES / 2);
            assertThat(after.pinnedPerGraph())
                    .as("pins are reported under the graph's own id")
                    .containsOnlyKeys(graph.id());
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
            graph.close();
            fresh.close();
            out.close();
            stream.synchronize();
            assertThat(rig.runtime.memoryStats().pinnedBytes()).isZero();
            assertThat(rig.runtime.memoryStats().inUseBytes()).isZero();
        }
    }

    @Test
    void a_rejected_update_pins_nothing_more_and_holds_nothing_new() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 2);
            Buffer in = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
            stream.synchronize();
            MemoryStats before = rig.runtime.memoryStats();

            UpdateResult result = graph.update(s -> {
                try (Buffer temp = s.allocate(BYTES)) {
                    Rig.launch(s, rig.addOne, in, temp);
                    Rig.launch(s, rig.mulTwo, temp, out);
                }
            });
            stream.synchronize();

            assertThat(result).isInstanceOf(UpdateResult.Rejected.class);
            MemoryStats after = rig.runtime.memoryStats();
            assertThat(after.pinnedBytes()).isEqualTo(before.pinnedBytes());
            assertThat(after.retainedByGraphsBytes()).isEqualTo(before.retainedByGraphsBytes());
            assertThat(after.inUseBytes()).isEqualTo(before.inUseBytes());
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
        }
    }

    @Test
    void a_rebind_frees_the_old_buffer_after_the_pending_replay_and_holds_the_new_one() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 3);
            int[] y = KitKernels.pattern(N, 4);
            Buffer from = stream.upload(x);
            Buffer to = stream.upload(y);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, from, out));
            stream.synchronize();
            long inUse = rig.runtime.memoryStats().inUseBytes();

            graph.replay(); // still reads from, which the graph holds until this replay is done
            graph.rebind(from, to);
            from.close();
            to.close();
            assertThat(stream.readInts(out))
                    .as("the pending replay read the old buffer")
                    .isEqualTo(KitKernels.addOne(x));
            stream.synchronize();
            assertThat(rig.runtime.memoryStats().inUseBytes())
                    .as("from went back to the pool")
                    .isLessThan(inUse);
            try (Buffer reuse = stream.upload(KitKernels.poison(N))) { // would take to's slice, had it been freed
                graph.replay();
                assertThat(stream.readInts(out))
                        .as("to is still held by the graph")
                        .isEqualTo(KitKernels.addOne(y));
                assertThat(stream.readInts(reuse)).isEqualTo(KitKernels.poison(N));
            }
        }
    }

    @Test
    void rebinding_a_closed_buffer_is_refused_and_changes_nothing() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 5);
            Buffer in = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
            in.close();

            assertThatThrownBy(() -> graph.rebind(in, out))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("from:")
                    .hasMessageContaining("closed");
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
        }
    }

    @Test
    void a_change_is_refused_while_the_graphs_stream_records_and_the_capture_stays_intact() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 6);
            Buffer in = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Buffer spare = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
            stream.prepare();
            stream.beginCapture();

            assertThatThrownBy(() -> graph.rebind(in, spare))
                    .isInstanceOf(GraphStateException.class)
                    .hasMessageContaining("between captures");
            assertThatThrownBy(() -> graph.update(s -> Rig.launch(s, rig.addOne, in, out)))
                    .isInstanceOf(GraphStateException.class);
            Rig.launch(stream, rig.mulTwo, in, spare);
            Graph second = stream.endCapture();
            second.replay();
            graph.replay();
            assertThat(stream.readInts(spare)).isEqualTo(KitKernels.mulTwo(x));
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
        }
    }

    @Test
    void a_backend_failing_to_seal_the_update_leaves_the_graph_replaying_its_old_recording() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 7);
            Buffer in = stream.upload(x);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
            stream.synchronize();
            MemoryStats before = rig.runtime.memoryStats();
            rig.backend.failOn(Hook.UPDATE, 1);

            // no warm-up, which would run the step eagerly and change the input
            assertThatThrownBy(() ->
                            graph.update(CaptureOptions.defaults().warmups(0), s -> Rig.launch(s, rig.addOne, out, in)))
                    .isInstanceOf(FaultInjectingBackend.Fault.class);
            rig.backend.disarm();
            stream.synchronize();

            assertThat(rig.runtime.memoryStats().pinnedBytes()).isEqualTo(before.pinnedBytes());
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
            assertThat(graph.update(s -> Rig.launch(s, rig.addOne, out, in)).applied())
                    .as("and can update again")
                    .isTrue();
        }
    }

    @Test
    void a_backend_failing_to_rebind_leaves_the_old_recording_with_both_buffers_held() {
        try (Rig rig = new Rig();
                GpuStream stream = rig.runtime.openStream()) {
            int[] x = KitKernels.pattern(N, 8);
            Buffer from = stream.upload(x);
            Buffer to = stream.upload(KitKernels.pattern(N, 9));
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, from, out));
            rig.backend.failOn(Hook.UPDATE, 1); // a software graph's rebind is an update of its recording

            assertThatThrownBy(() -> graph.rebind(from, to)).isInstanceOf(FaultInjectingBackend.Fault.class);
            rig.backend.disarm();
            from.close();
            to.close();
            stream.synchronize();

            try (Buffer reuse = stream.upload(KitKernels.poison(N))) { // would take either slice, had it been freed
                graph.replay();
                assertThat(stream.readInts(out))
                        .as("the old recording, its input still held")
                        .isEqualTo(KitKernels.addOne(x));
                assertThat(stream.readInts(reuse)).isEqualTo(KitKernels.poison(N));
            }
            assertThat(rig.runtime.memoryStats().retainedByGraphsBytes())
                    .as("from, to and out held")
                    .isGreaterThanOrEqualTo(3 * BYTES);
        }
    }

    @Test
    void two_streams_recording_their_own_captures_cannot_wait_for_each_others_capture_events() {
        try (Rig rig = new Rig();
                GpuStream a = rig.runtime.openStream();
                GpuStream b = rig.runtime.openStream()) {
            a.prepare();
            a.beginCapture();
            b.prepare();
            b.beginCapture();
            var eventOfA = a.record();
            var eventOfB = b.record();

            assertThatThrownBy(() -> a.waitFor(eventOfB))
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("another capture");
            assertThatThrownBy(() -> b.waitFor(eventOfA)).isInstanceOf(CaptureRejectedException.class);
            a.cancelCapture();
            b.cancelCapture();
            assertThatThrownBy(() -> rig.runtime.openStream().waitFor(eventOfA))
                    .as("an event of a capture that ended")
                    .isInstanceOf(IllegalStateException.class);
        }
    }
}
