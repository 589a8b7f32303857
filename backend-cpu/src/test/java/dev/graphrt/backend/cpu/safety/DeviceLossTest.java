package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Hook;
import dev.graphrt.conformance.KitKernels;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A sticky device error loses the runtime, not the process: every later call fails fast naming the first
 * error, closing completes quietly, and a new runtime works (issue: device faults). The backend reports the
 * sticky error as a driver would (CUDA 700), from the hook where it happens.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DeviceLossTest {

    @Test
    void a_sticky_error_in_a_launch_loses_the_runtime_and_every_later_call_fails_fast_naming_it() {
        Rig rig = new Rig();
        GpuStream stream = rig.runtime.openStream();
        int[] x = KitKernels.pattern(N, 21);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(BYTES);
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
        rig.backend.loseDeviceOn(Hook.LAUNCH, 1);

        Throwable first = catchThrowable(() -> Rig.launch(stream, rig.mulTwo, in, out));

        assertThat(first).isInstanceOf(DeviceLostException.class).hasMessageContaining("CUDA_ERROR_ILLEGAL_ADDRESS");
        for (Throwable later : new Throwable[] {
            catchThrowable(() -> stream.allocate(BYTES)),
            catchThrowable(() -> Rig.launch(stream, rig.addOne, in, out)),
            catchThrowable(graph::replay),
            catchThrowable(stream::synchronize),
            catchThrowable(() -> stream.readInts(out)),
            catchThrowable(rig.runtime::openStream),
            catchThrowable(() -> rig.runtime.compile(KitKernels.PING_PONG)),
            catchThrowable(() -> stream.capture(CaptureOptions.defaults(), s -> {}))
        }) {
            assertThat(later)
                    .isInstanceOf(DeviceLostException.class)
                    .hasMessageContaining("lost earlier")
                    .hasMessageContaining("launch of");
        }
        assertThat(rig.backend.calls(Hook.LAUNCH))
                .as("nothing reached the device after the loss")
                .isEqualTo(2);

        assertThatCode(() -> {
                    graph.close();
                    in.close();
                    out.close();
                    stream.close();
                    rig.runtime.close();
                })
                .as("closing a lost runtime completes and says nothing more")
                .doesNotThrowAnyException();
        assertThat(rig.backend.calls(Hook.BACKEND_CLOSE)).isEqualTo(1);
        assertThat(rig.backend.liveBytes()).as("its memory freed").isZero();
    }

    @Test
    void a_sticky_error_surfacing_at_a_sync_after_a_replay_loses_the_runtime_and_a_new_runtime_computes() {
        Rig rig = new Rig();
        GpuStream stream = rig.runtime.openStream();
        int[] x = KitKernels.pattern(N, 22);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(BYTES);
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, out));
        graph.replay();
        rig.backend.loseDeviceOn(Hook.SYNCHRONIZE, 1);
        rig.backend.loseDeviceOn(Hook.AWAIT, 1);

        Throwable failure = catchThrowable(stream::synchronize);

        assertThat(failure).isInstanceOf(DeviceLostException.class).hasMessageContaining("graph #" + graph.id());
        assertThatThrownBy(() -> stream.write(in, x)).isInstanceOf(DeviceLostException.class);
        assertThatCode(rig.runtime::close).doesNotThrowAnyException();

        try (Rig fresh = new Rig()) {
            GpuStream s = fresh.runtime.openStream();
            Buffer a = s.upload(x);
            Buffer b = s.allocate(BYTES);
            Rig.launch(s, fresh.mulTwo, a, b);
            assertThat(s.readInts(b)).as("a new runtime works").isEqualTo(KitKernels.mulTwo(x));
        }
    }

    @Test
    void an_ordinary_kernel_failure_does_not_lose_the_runtime() {
        try (Rig rig = new Rig()) {
            GpuStream stream = rig.runtime.openStream();
            rig.backend.failOn(Hook.LAUNCH, 1);
            Buffer in = stream.upload(Rig.constant(1));
            Buffer out = stream.allocate(BYTES);
            assertThatThrownBy(() -> Rig.launch(stream, rig.addOne, in, out))
                    .isInstanceOf(FaultInjectingBackend.Fault.class);
            Rig.launch(stream, rig.addOne, in, out);
            assertThat(stream.readInts(out)).isEqualTo(Rig.constant(2));
        }
    }
}
