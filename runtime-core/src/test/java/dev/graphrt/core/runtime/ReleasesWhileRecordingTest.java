package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.api.UpdateResult;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** DESIGN.md section 3, "free / buffer close" while recording: deferred, no fence, released when the window ends. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ReleasesWhileRecordingTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});

    @Test
    void a_graph_closed_while_the_stream_records_is_released_after_the_window_without_a_fence_inside_it() {
        FakeBackend backend = new FakeBackend();
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        Graph graph = stream.capture(
                CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in)));
        stream.prepare();
        stream.beginCapture();
        int fencesWhenRecordingBegan = backend.fences.get();

        graph.close();
        stream.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in));

        assertThat(backend.fences.get()).as("no fence while recording").isEqualTo(fencesWhenRecordingBegan);
        assertThat(backend.destroyed.get()).as("still deferred").isZero();
        stream.endCapture().close();
        stream.synchronize();
        assertThat(backend.destroyed.get())
                .as("both graphs released once the window ended")
                .isEqualTo(2);
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void an_applied_update_frees_no_device_memory_until_the_driver_has_ended_its_capture() {
        FakeBackend backend = new FakeBackend(GraphKind.HARDWARE, Set.of(Capability.GRAPH_UPDATE));
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults().poolReserve(0));
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        Graph graph = stream.capture(
                CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in)));
        long reservedBefore = runtime.memoryStats().reservedBytes();
        for (int i = 0; i < 4; i++) { // large buffers whose releases wait behind the stream's work
            try (Buffer large = stream.allocate((3L << 20) + 4096L * i)) {
                stream.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(large));
            }
        }

        UpdateResult result = graph.update(
                CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in)));

        assertThat(result.applied()).isTrue();
        assertThat(backend.freesWhileCapturing.get())
                .as("device frees while the driver still captured")
                .isZero();
        stream.synchronize();
        assertThat(runtime.memoryStats().reservedBytes())
                .as("the reserve is enforced once the capture ended")
                .isEqualTo(reservedBefore);
        graph.close();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }
}
