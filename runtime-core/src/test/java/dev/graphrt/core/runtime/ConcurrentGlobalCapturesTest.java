package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
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
 * Review findings on the cross-stream capture rule (docs/decisions.md, "Captures forbid device calls from other
 * streams") when two hardware captures record at once: the rule must neither wedge streams nor be bypassed by
 * the capture lifecycle's own flushes.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ConcurrentGlobalCapturesTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);
    private static final CaptureOptions GLOBAL = CaptureOptions.defaults().mode(CaptureMode.GLOBAL);

    private static FakeBackend hardware() {
        return new FakeBackend(GraphKind.HARDWARE, EnumSet.noneOf(Capability.class));
    }

    /**
     * Each stream's close is deferred because the other one's capture forbids device calls, and a deferred
     * stream refuses endCapture/cancelCapture as closed: neither capture can ever end, so neither stream is torn
     * down before runtime.close(), and every other stream of the runtime is wedged behind them.
     */
    @Test
    void two_streams_closed_while_both_record_globally_are_torn_down_not_left_recording() {
        FakeBackend backend = hardware();
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream first = runtime.openStream();
        GpuStream second = runtime.openStream();
        first.prepare();
        first.beginCapture(GLOBAL);
        second.prepare();
        second.beginCapture(GLOBAL);

        first.close();
        second.close();

        assertThat(first.captureState()).as("the first stream's capture ended").isEqualTo(CaptureState.NO_CAPTURE);
        assertThat(second.captureState())
                .as("the second stream's capture ended")
                .isEqualTo(CaptureState.NO_CAPTURE);
        assertThat(backend.openStreams.get()).as("both streams torn down").isZero();

        GpuStream third = runtime.openStream();
        third.allocate(256).close();
        third.close();
        assertThat(backend.openStreams.get())
                .as("a later stream's close is not deferred forever")
                .isZero();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    /**
     * endCapture on one stream flushes its deferred releases (a fence and a fence query) while another stream
     * still records in GLOBAL mode: exactly the device call the rule says the driver refuses and that
     * invalidates the other capture. The stream's own flush points check the rule; the lifecycle's do not.
     */
    @Test
    void ending_a_capture_while_another_stream_records_globally_records_no_fence() {
        FakeBackend backend = hardware();
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream ending = runtime.openStream();
        GpuStream recording = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer buffer = ending.allocate(256);
        Graph old = ending.capture(GLOBAL, s -> s.launch(kernel, DIMS, KernelArgs.of(buffer)));

        ending.prepare();
        ending.beginCapture(GLOBAL);
        ending.launch(kernel, DIMS, KernelArgs.of(buffer));
        old.close(); // its release is deferred behind the window
        recording.prepare();
        recording.beginCapture(GLOBAL);
        int fencesBefore = backend.fences.get();

        Graph graph = ending.endCapture();

        assertThat(backend.fences.get())
                .as("no fence while the other global capture records")
                .isEqualTo(fencesBefore);
        recording.endCapture().close();
        graph.close();
        buffer.close();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    /**
     * The same for beginCapture: it fences and waits for the warm-up's work on its stream (flushAndWait) while
     * another stream records globally, a host wait the driver refuses during a global capture.
     */
    @Test
    void beginning_a_capture_while_another_stream_records_globally_records_no_fence() {
        FakeBackend backend = hardware();
        CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream starting = runtime.openStream();
        GpuStream recording = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer buffer = starting.allocate(256);
        recording.prepare();
        recording.beginCapture(GLOBAL);

        starting.prepare();
        starting.launch(kernel, DIMS, KernelArgs.of(buffer)); // the warm-up holds the buffer in its epoch
        int fencesBefore = backend.fences.get();
        try {
            starting.beginCapture(GLOBAL);
        } catch (RuntimeException refused) {
            // refusing (with the capture left intact) would be a correct answer too
        }

        assertThat(backend.fences.get())
                .as("no fence while the other global capture records")
                .isEqualTo(fencesBefore);
        runtime.close();
    }

    /**
     * The same for a plain write on another stream: once more than stagingBytes are queued, the core's own
     * back-pressure fences and waits on that stream, while another stream records in GLOBAL mode.
     */
    @Test
    void back_pressure_on_another_stream_records_no_fence_while_a_global_capture_records() {
        FakeBackend backend = hardware();
        CoreRuntime runtime = new CoreRuntime(backend, stagingBytes(1024));
        GpuStream writer = runtime.openStream();
        GpuStream recording = runtime.openStream();
        Buffer buffer = writer.allocate(1024);
        recording.prepare();
        recording.beginCapture(GLOBAL);
        int fencesBefore = backend.fences.get();

        for (int i = 0; i < 3; i++) {
            try {
                writer.write(buffer, new float[256]);
            } catch (RuntimeException refused) {
                // a typed refusal would be a correct answer too
            }
        }

        assertThat(backend.fences.get())
                .as("no fence while the other global capture records")
                .isEqualTo(fencesBefore);
        runtime.close();
    }

    private static RuntimeOptions stagingBytes(long bytes) {
        return RuntimeOptions.builder().stagingBytes(bytes).build();
    }
}
