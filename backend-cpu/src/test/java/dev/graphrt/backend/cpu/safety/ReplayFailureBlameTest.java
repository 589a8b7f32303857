package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.ReplayFailedException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Review finding, the mirror of "a kernel failing in a warm-up fails capture() and no later sync blames a
 * replay": a replay enqueued before prepare() that fails while the warm-up runs is reported by endWarmupPass as
 * the warm-up step's own error (capture() fails with "warm-up pass"), and the graph that failed goes unnamed.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ReplayFailureBlameTest {

    @Test
    void a_replay_failing_during_the_next_captures_warm_up_is_blamed_on_the_replay_not_on_the_step() {
        try (Rig rig = new Rig()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer in = stream.upload(Rig.constant(1));
            Buffer out = stream.allocate(BYTES);
            AtomicBoolean explode = new AtomicBoolean(false);
            var fragile = rig.hostKernel("fragile", () -> {
                if (explode.get()) {
                    Rig.sleep(200); // still running when prepare() looks for queued errors
                    throw new IllegalStateException("the replayed graph went wrong");
                }
            });
            Graph bad = stream.capture(CaptureOptions.defaults(), s -> s.launch(fragile, Rig.ONCE, KernelArgs.of(out)));
            explode.set(true);
            bad.replay();

            Throwable failure = catchThrowable(() ->
                    stream.capture(CaptureOptions.defaults().warmups(1), s -> Rig.launch(s, rig.addOne, in, out)));

            assertThat(failure)
                    .as("the replay failed, not the step")
                    .isInstanceOf(ReplayFailedException.class)
                    .hasMessageContaining("graph #" + bad.id());
        }
    }
}
