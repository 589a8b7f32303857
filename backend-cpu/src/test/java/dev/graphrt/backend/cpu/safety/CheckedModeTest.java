package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphDiagnosis;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Checked mode and Graph.diagnose() (issue: device faults, section 3). The backend writes past a buffer's end
 * after a chosen kernel, in stream order, as an out-of-bounds GPU kernel would; Java kernels themselves cannot.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CheckedModeTest {
    private static Rig checked() {
        return new Rig(RuntimeOptions.defaults().checked(true));
    }

    @Test
    void checked_mode_reports_a_write_past_a_buffers_end_naming_the_buffer_the_offset_and_the_kernel() {
        try (Rig rig = checked()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer victim = stream.upload(Rig.constant(1));
            Buffer neighbour = stream.upload(Rig.constant(2));
            rig.backend.overrunAfter("fill", 16);

            Rig.fill(stream, rig.fill, victim, 9);
            Throwable caught = catchThrowable(stream::synchronize);

            assertThat(caught).isInstanceOf(BufferOverrunException.class);
            BufferOverrunException overrun = (BufferOverrunException) caught;
            assertThat(overrun.buffer()).isEqualTo(victim.toString());
            assertThat(overrun.offset()).as("the first byte past its end").isEqualTo(BYTES);
            assertThat(overrun.lastLaunches().get(0)).startsWith("fill");
            assertThat(overrun).hasMessageContaining("past its end").hasMessageContaining("fill");
            assertThat(stream.readInts(neighbour))
                    .as("the guard took the overrun")
                    .isEqualTo(Rig.constant(2));
            assertThat(stream.readInts(victim)).isEqualTo(Rig.constant(9));
            assertThatCode(stream::synchronize)
                    .as("reported once, the guard restored")
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void without_checked_mode_the_same_overrun_goes_unnoticed_which_is_why_the_mode_exists() {
        try (Rig rig = new Rig()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer victim = stream.upload(Rig.constant(1));
            rig.backend.overrunAfter("fill", 16);
            Rig.fill(stream, rig.fill, victim, 9);
            assertThatCode(stream::synchronize).doesNotThrowAnyException();
        }
    }

    @Test
    void diagnose_runs_a_graph_launch_by_launch_and_names_the_first_that_fails() {
        try (Rig rig = new Rig()) {
            GpuStream stream = rig.runtime.openStream();
            int[] x = KitKernels.pattern(N, 31);
            Buffer in = stream.upload(x);
            Buffer mid = stream.allocate(BYTES);
            Buffer out = stream.allocate(BYTES);
            AtomicBoolean explode = new AtomicBoolean();
            var fragile = rig.hostKernel("fragile", () -> {
                if (explode.get()) {
                    throw new IllegalStateException("second step broke");
                }
            });
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                Rig.launch(s, rig.addOne, in, mid);
                s.launch(fragile, Rig.ONCE, KernelArgs.of(mid));
                Rig.launch(s, rig.mulTwo, mid, out);
            });

            GraphDiagnosis healthy = graph.diagnose();
            assertThat(healthy.healthy()).isTrue();
            assertThat(healthy.launches()).isEqualTo(3);
            assertThat(stream.readInts(out))
                    .as("the launches really ran")
                    .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));

            explode.set(true);
            GraphDiagnosis broken = graph.diagnose();
            assertThat(broken.failedAt()).isEqualTo(1);
            assertThat(broken.failedLaunch()).startsWith("fragile grid 1x1x1");
            assertThat(broken.failure()).isInstanceOf(DriverException.class).hasRootCauseMessage("second step broke");
            explode.set(false);
            graph.replay();
            assertThat(stream.readInts(out))
                    .as("the stream goes on")
                    .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        }
    }

    @Test
    void in_checked_mode_diagnose_names_the_launch_that_wrote_outside_one_of_the_graphs_buffers() {
        try (Rig rig = checked()) {
            GpuStream stream = rig.runtime.openStream();
            int[] x = KitKernels.pattern(N, 32);
            Buffer in = stream.upload(x);
            Buffer mid = stream.allocate(BYTES);
            Buffer out = stream.allocate(BYTES);
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                Rig.launch(s, rig.addOne, in, mid);
                Rig.fill(s, rig.fill, out, 5);
                Rig.launch(s, rig.mulTwo, mid, out);
            });
            rig.backend.overrunAfter("fill", 8); // the wrapper sees eager launches, which is what diagnose runs

            GraphDiagnosis diagnosis = graph.diagnose();
            assertThat(diagnosis.failedAt())
                    .as("the fill, not the launches around it")
                    .isEqualTo(1);
            assertThat(diagnosis.failedLaunch()).startsWith("fill");
            assertThat(diagnosis.failure())
                    .isInstanceOf(BufferOverrunException.class)
                    .hasMessageContaining(out.toString())
                    .hasMessageContaining("diagnosis step 1");
        }
    }

    /**
     * Review finding: CheckedWork.check asks {@code alive()} and then reads (and, on a mismatch, rewrites) the
     * guards without holding the buffer. A buffer whose stream epoch was already reclaimed is held only by its
     * user; closed by another thread during the check, its slice is handed to a new buffer, and the check reads
     * the new buffer's data as the old one's back guard: a false overrun, and the canary "restored" over the
     * new buffer's live data. Here the other thread's moves run at the guard read, where they may interleave.
     */
    @Test
    void a_guard_check_racing_a_close_neither_reports_a_false_overrun_nor_writes_into_the_next_buffer() {
        try (Rig rig = checked()) {
            GpuStream stream = rig.runtime.openStream();
            GpuStream other = rig.runtime.openStream();
            Buffer small = stream.allocate(64);
            Buffer closedWhileHeld = stream.allocate(64);
            stream.launch(
                    rig.fill,
                    dev.graphrt.api.LaunchDims.linear(16, 16),
                    KernelArgs.of(small).info(16, 5));
            stream.launch(
                    rig.fill,
                    dev.graphrt.api.LaunchDims.linear(16, 16),
                    KernelArgs.of(closedWhileHeld).info(16, 5));
            closedWhileHeld.close(); // the next flush point fences the epoch
            Rig.sleep(200);
            stream.allocate(4).close(); // fences the epoch holding `small`
            Rig.sleep(200);
            stream.allocate(4).close(); // reclaims it: only the user's handle holds `small` now
            int[] data = new int[100];
            java.util.Arrays.fill(data, 7);
            Buffer[] next = new Buffer[1];
            rig.backend.beforeNextRead(() -> {
                small.close();
                next[0] = other.allocate(400); // the same size class: `small`'s slot, last in, first out
                other.write(next[0], data);
                other.synchronize();
            });

            assertThatCode(stream::synchronize).as("no overrun happened").doesNotThrowAnyException();
            assertThat(next[0]).isNotNull();
            assertThat(other.readInts(next[0]))
                    .as("the new buffer's data is intact")
                    .isEqualTo(data);
        }
    }

    /**
     * Review finding: the guard reads (and the canary restore) run after the blamed host sync, outside every
     * wrapper, so a backend read failing there reaches the user raw from synchronize(), which issue 11 item 11
     * and docs/decisions.md ("Raw backend failures ... of read reach the user as DriverException") rule out.
     */
    @Test
    void a_backend_read_failing_in_a_guard_check_reaches_the_user_as_a_driver_exception() {
        try (Rig rig = checked()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer buffer = stream.upload(Rig.constant(1));
            Rig.fill(stream, rig.fill, buffer, 3);
            rig.backend.failOn(FaultInjectingBackend.Hook.READ, 1);

            Throwable caught = catchThrowable(stream::synchronize);

            assertThat(caught)
                    .isInstanceOf(DriverException.class)
                    .hasRootCauseInstanceOf(FaultInjectingBackend.Fault.class);
        }
    }

    /**
     * Review finding (checked-mode false negative): a buffer closed by its user right after the launch that
     * overran it is freed as soon as the stream's next flush point finds that launch done (synchronize() starts
     * with one), before the guards are read; CheckedWork.check then skips it as no longer alive, and the overrun
     * is never reported (flush() or any allocation on the stream fences the epoch first). The next allocation of that slot rewrites the canary, erasing the evidence.
     */
    @Test
    void an_overrun_into_a_buffer_closed_right_after_the_launch_is_still_reported() {
        try (Rig rig = checked()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer victim = stream.upload(Rig.constant(1));
            rig.backend.overrunAfter("fill", 16);
            Rig.fill(stream, rig.fill, victim, 9);
            victim.close();
            stream.flush(); // a flush point (any allocation is one too) fences the epoch holding it
            Rig.sleep(200); // the launch and the fence are done

            Throwable caught = catchThrowable(stream::synchronize);

            assertThat(caught).as("the overrun is reported").isInstanceOf(BufferOverrunException.class);
        }
    }
}
