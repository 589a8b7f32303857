package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** DESIGN.md section 3, "replay another graph" while recording, on a hardware backend (the driver's branch). */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NestedReplayTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);

    private static FakeBackend hardware(Capability... more) {
        java.util.EnumSet<Capability> declared = java.util.EnumSet.noneOf(Capability.class);
        declared.addAll(Set.of(more));
        return new FakeBackend(GraphKind.HARDWARE, declared);
    }

    @Test
    void a_hardware_backend_with_nested_graphs_has_the_driver_record_the_replay_and_the_parent_keeps_the_child() {
        FakeBackend backend = hardware(Capability.NESTED_GRAPHS);
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        Graph child = stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(in)));

        stream.prepare();
        stream.beginCapture();
        child.replay();
        stream.launch(kernel, DIMS, KernelArgs.of(in));
        Graph parent = stream.endCapture();

        assertThat(backend.childNodesRecorded.get())
                .as("the driver recorded the replay as a child")
                .isEqualTo(1);
        assertThat(backend.replays.get()).as("nothing replayed while recording").isZero();
        assertThat(parent.info().nodeCount()).isEqualTo(2);
        assertThat(parent.toDot()).contains("graph #" + child.id());

        child.close();
        in.close();
        stream.synchronize();
        assertThat(backend.destroyed.get())
                .as("the parent keeps the closed child")
                .isZero();
        assertThat(runtime.memoryStats().retainedByGraphsBytes())
                .as("and the child's buffer")
                .isPositive();

        parent.close();
        stream.synchronize();
        assertThat(backend.destroyed.get()).as("both go when the parent goes").isEqualTo(2);
        assertThat(runtime.memoryStats().retainedByGraphsBytes()).isZero();
        assertThat(runtime.memoryStats().pinnedBytes()).isZero();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void without_nested_graphs_the_replay_never_reaches_the_driver_and_end_capture_names_it() {
        FakeBackend backend = hardware();
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        Graph child = stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(in)));
        stream.prepare();
        stream.beginCapture();
        child.replay();
        assertThatThrownBy(stream::endCapture)
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("replay of graph #" + child.id())
                .hasMessageContaining("NESTED_GRAPHS");
        assertThat(backend.childNodesRecorded.get()).isZero();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }
}
