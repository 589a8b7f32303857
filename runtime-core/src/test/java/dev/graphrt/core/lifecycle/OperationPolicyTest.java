package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.core.lifecycle.OperationPolicy.ReleaseAction;
import dev.graphrt.core.lifecycle.OperationPolicy.ReplayAction;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The rows of DESIGN.md section 3 that used to live outside the policy. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class OperationPolicyTest {
    private static final OperationPolicy SOFTWARE = new OperationPolicy("soft", Set.of(), GraphKind.SOFTWARE);
    private static final OperationPolicy SOFTWARE_NESTED =
            new OperationPolicy("soft", Set.of(Capability.NESTED_GRAPHS), GraphKind.SOFTWARE);
    private static final OperationPolicy HARDWARE_NESTED =
            new OperationPolicy("hard", Set.of(Capability.NESTED_GRAPHS), GraphKind.HARDWARE);

    @Test
    void a_replay_runs_outside_a_recording_on_every_backend() {
        for (OperationPolicy policy : new OperationPolicy[] {SOFTWARE, SOFTWARE_NESTED, HARDWARE_NESTED}) {
            assertThat(policy.replay(CaptureState.NO_CAPTURE)).isEqualTo(ReplayAction.RUN);
            assertThat(policy.replay(CaptureState.PREPARE)).isEqualTo(ReplayAction.RUN);
        }
    }

    @Test
    void a_replay_while_recording_is_recorded_as_a_child_only_where_nested_graphs_is_declared() {
        assertThat(SOFTWARE.replay(CaptureState.CAPTURE)).isEqualTo(ReplayAction.DEFER_REJECTION);
        assertThat(SOFTWARE_NESTED.replay(CaptureState.CAPTURE)).isEqualTo(ReplayAction.RECORD_IN_CORE);
        assertThat(HARDWARE_NESTED.replay(CaptureState.CAPTURE)).isEqualTo(ReplayAction.RECORD_IN_DRIVER);
    }

    @Test
    void global_and_thread_local_are_the_base_contract_and_relaxed_needs_its_capability() {
        OperationPolicy relaxed =
                new OperationPolicy("soft", Set.of(Capability.CAPTURE_MODE_RELAXED), GraphKind.SOFTWARE);
        for (OperationPolicy policy : new OperationPolicy[] {SOFTWARE, relaxed}) {
            assertThatCode(() -> policy.checkMode(CaptureMode.GLOBAL)).doesNotThrowAnyException();
            assertThatCode(() -> policy.checkMode(CaptureMode.THREAD_LOCAL)).doesNotThrowAnyException();
        }
        assertThatCode(() -> relaxed.checkMode(CaptureMode.RELAXED)).doesNotThrowAnyException();
        assertThatThrownBy(() -> SOFTWARE.checkMode(CaptureMode.RELAXED))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageEndingWith("does not support CAPTURE_MODE_RELAXED: beginCapture in RELAXED mode");
    }

    @Test
    void deferred_releases_are_fenced_except_while_recording() {
        assertThat(SOFTWARE.release(CaptureState.NO_CAPTURE)).isEqualTo(ReleaseAction.FENCE_AND_RECLAIM);
        assertThat(SOFTWARE.release(CaptureState.PREPARE)).isEqualTo(ReleaseAction.FENCE_AND_RECLAIM);
        assertThat(SOFTWARE.release(CaptureState.CAPTURE)).isEqualTo(ReleaseAction.KEEP_UNTIL_THE_WINDOW_ENDS);
    }

    @Test
    void another_thread_is_refused_only_while_recording_and_not_in_relaxed_mode() throws Exception {
        Thread owner = new Thread(() -> {}, "capturer");
        assertThatCode(() -> SOFTWARE.checkThread(CaptureState.NO_CAPTURE, CaptureMode.GLOBAL, owner, "launch", 1))
                .doesNotThrowAnyException();
        assertThatCode(() -> SOFTWARE.checkThread(CaptureState.PREPARE, CaptureMode.GLOBAL, owner, "launch", 1))
                .doesNotThrowAnyException();
        assertThatCode(() -> SOFTWARE.checkThread(CaptureState.CAPTURE, CaptureMode.RELAXED, owner, "launch", 1))
                .doesNotThrowAnyException();
        assertThatCode(() -> SOFTWARE.checkThread(
                        CaptureState.CAPTURE, CaptureMode.GLOBAL, Thread.currentThread(), "launch", 1))
                .doesNotThrowAnyException();
        assertThatThrownBy(
                        () -> SOFTWARE.checkThread(CaptureState.CAPTURE, CaptureMode.THREAD_LOCAL, owner, "launch", 1))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("launch: stream #1")
                .hasMessageContaining("capturer")
                .hasMessageContaining("RELAXED");
    }
}
