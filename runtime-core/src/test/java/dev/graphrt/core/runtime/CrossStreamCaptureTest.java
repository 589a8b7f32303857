package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * While a hardware capture in THREAD_LOCAL mode records on this thread, the driver refuses fence queries and
 * frees from it on other streams (and invalidates the capture). Found on the H200 by kit group 19: closing other
 * resources then must not touch the device; a stream's close completes when the capture ends.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CrossStreamCaptureTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);

    @Test
    void closing_another_streams_graph_buffer_and_stream_while_this_thread_records_touches_no_fence_until_it_ends() {
        FakeBackend backend = new FakeBackend(GraphKind.HARDWARE, EnumSet.noneOf(Capability.class));
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream recording = runtime.openStream();
        GpuStream other = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer buffer = other.allocate(256);
        Graph graph = other.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(buffer)));
        graph.replay();
        recording.prepare();
        recording.beginCapture();
        int fencesBefore = backend.fences.get();

        graph.close();
        buffer.close();
        other.close();
        other.close(); // twice: still nothing reaches the device

        assertThat(backend.fences.get())
                .as("no fence while the capture forbids it")
                .isEqualTo(fencesBefore);
        assertThat(backend.openStreams.get())
                .as("the other stream is not torn down yet")
                .isEqualTo(2);
        assertThatThrownBy(() -> other.allocate(256))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");

        recording.endCapture().close();

        assertThat(backend.openStreams.get())
                .as("torn down once the capture ended")
                .isEqualTo(1);
        assertThat(backend.destroyed.get())
                .as("its graph destroyed then, and the new one closed")
                .isEqualTo(2);
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void a_stream_closed_while_another_records_is_torn_down_by_the_runtime_close_if_the_capture_never_ends() {
        FakeBackend backend = new FakeBackend(GraphKind.HARDWARE, EnumSet.noneOf(Capability.class));
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream recording = runtime.openStream();
        GpuStream other = runtime.openStream();
        other.allocate(4096);
        recording.prepare();
        recording.beginCapture();
        other.close();
        runtime.close();
        assertThat(backend.openStreams.get()).isZero();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void a_host_sync_of_another_stream_from_the_capturing_thread_is_refused_before_the_driver_invalidates_the_capture()
            throws Exception {
        FakeBackend backend = new FakeBackend(GraphKind.HARDWARE, EnumSet.noneOf(Capability.class));
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream recording = runtime.openStream();
        GpuStream other = runtime.openStream();
        Buffer buffer = other.allocate(256);
        recording.prepare();
        recording.beginCapture();
        int fencesBefore = backend.fences.get();

        assertThatThrownBy(other::synchronize)
                .isInstanceOf(dev.graphrt.api.CaptureRejectedException.class)
                .hasMessageContaining("synchronize")
                .hasMessageContaining("another stream");
        assertThatThrownBy(() -> other.readInts(buffer)).isInstanceOf(dev.graphrt.api.CaptureRejectedException.class);
        assertThat(backend.fences.get()).as("nothing reached the device").isEqualTo(fencesBefore);

        Thread elsewhere = new Thread(other::synchronize); // THREAD_LOCAL forbids only the capturing thread
        java.util.concurrent.atomic.AtomicReference<Throwable> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        elsewhere.setUncaughtExceptionHandler((t, e) -> failed.set(e));
        elsewhere.start();
        elsewhere.join();
        assertThat(failed.get()).as("another thread may synchronize it").isNull();

        assertThat(recording.endCapture()).as("the capture survived").isNotNull();
        other.synchronize();
        runtime.close();
    }
}
