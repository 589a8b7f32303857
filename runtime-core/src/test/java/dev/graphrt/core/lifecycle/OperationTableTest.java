package dev.graphrt.core.lifecycle;

import static dev.graphrt.api.CaptureState.CAPTURE;
import static dev.graphrt.api.CaptureState.NO_CAPTURE;
import static dev.graphrt.api.CaptureState.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.core.lifecycle.OperationPolicy.CaptureEventKind;
import dev.graphrt.core.lifecycle.OperationPolicy.CollectiveAction;
import dev.graphrt.core.lifecycle.OperationPolicy.CopyAction;
import dev.graphrt.core.lifecycle.OperationPolicy.PoolAction;
import dev.graphrt.core.lifecycle.OperationPolicy.WriteAction;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The operation table row by row (DESIGN.md section 3): every per-state answer of {@link OperationPolicy} in each of
 * the three states, and each answer that depends on the graph kind or a capability, for both kinds. A change to the
 * table fails here, naming the row, before a kit group finds its consequence.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class OperationTableTest {
    private static final OperationPolicy SOFTWARE = new OperationPolicy("soft", Set.of(), GraphKind.SOFTWARE);
    private static final OperationPolicy HARDWARE = new OperationPolicy(
            "hard",
            Set.of(Capability.RECORDS_WRITES, Capability.MULTI_STREAM_CAPTURE, Capability.MID_CAPTURE_ALLOCATION),
            GraphKind.HARDWARE);

    /** The states in which {@code row} answers true, checked over all three. */
    private static void holdsIn(String row, Predicate<CaptureState> answer, CaptureState... states) {
        Set<CaptureState> expected = Set.of(states);
        for (CaptureState state : CaptureState.values()) {
            assertThat(answer.test(state)).as("%s in %s", row, state).isEqualTo(expected.contains(state));
        }
    }

    @Test
    void the_state_rows_answer_the_same_for_every_backend() {
        for (OperationPolicy p : new OperationPolicy[] {SOFTWARE, HARDWARE}) {
            holdsIn("eventJoinsCapture", p::eventJoinsCapture, CAPTURE);
            holdsIn("mayJoinAnotherCapture", p::mayJoinAnotherCapture, NO_CAPTURE);
            holdsIn("warmingUp", p::warmingUp, PREPARE);
            holdsIn("joinsWarmup", p::joinsWarmup, PREPARE);
            holdsIn("countsAsRecorded", p::countsAsRecorded, CAPTURE);
            holdsIn("abandonsOnDeferredClose", p::abandonsOnDeferredClose, CAPTURE);
            holdsIn("windowOpen", p::windowOpen, PREPARE, CAPTURE);
            holdsIn("waitsForReplaysAtPrepare", p::waitsForReplaysAtPrepare, NO_CAPTURE);
            for (CaptureState own : CaptureState.values()) {
                for (CaptureState origin : CaptureState.values()) {
                    assertThat(p.primesInWarmup(own, origin))
                            .as("primesInWarmup(%s, %s)", own, origin)
                            .isEqualTo(own == NO_CAPTURE && origin == PREPARE);
                }
            }
            assertThat(Map.of(NO_CAPTURE, p.pool(NO_CAPTURE), PREPARE, p.pool(PREPARE), CAPTURE, p.pool(CAPTURE)))
                    .isEqualTo(Map.of(
                            NO_CAPTURE,
                            PoolAction.NONE,
                            PREPARE,
                            PoolAction.NOTE_WARMUP,
                            CAPTURE,
                            PoolAction.LEND_TEMPORARIES));
        }
    }

    @Test
    void writes_and_copies_run_outside_a_recording_and_inside_one_are_recorded_only_where_the_backend_can() {
        for (CaptureState state : new CaptureState[] {NO_CAPTURE, PREPARE}) {
            assertThat(SOFTWARE.write(state)).as("write in %s", state).isEqualTo(WriteAction.RUN);
            assertThat(HARDWARE.write(state)).as("write in %s", state).isEqualTo(WriteAction.RUN);
            assertThat(SOFTWARE.copy(state)).as("copy in %s", state).isEqualTo(CopyAction.RUN);
            assertThat(HARDWARE.copy(state)).as("copy in %s", state).isEqualTo(CopyAction.RUN);
        }
        assertThat(SOFTWARE.write(CAPTURE)).isEqualTo(WriteAction.DEFER_REJECTION);
        assertThat(HARDWARE.write(CAPTURE)).isEqualTo(WriteAction.RECORD);
        assertThat(SOFTWARE.copy(CAPTURE)).isEqualTo(CopyAction.DEFER_REJECTION);
        assertThat(HARDWARE.copy(CAPTURE)).isEqualTo(CopyAction.RECORD_IN_DRIVER);
    }

    @Test
    void the_graph_kind_decides_frees_device_calls_and_what_an_event_in_a_capture_is() {
        assertThat(SOFTWARE.freesDuringCapture()).isTrue();
        assertThat(HARDWARE.freesDuringCapture()).isFalse();
        assertThat(SOFTWARE.capturesForbidDeviceCalls()).isFalse();
        assertThat(HARDWARE.capturesForbidDeviceCalls()).isTrue();
        assertThat(SOFTWARE.captureEvent()).isEqualTo(CaptureEventKind.POSITION);
        assertThat(HARDWARE.captureEvent()).isEqualTo(CaptureEventKind.DRIVER_EVENT);
        assertThat(SOFTWARE.windowMayGrowPool()).isFalse();
        assertThat(HARDWARE.windowMayGrowPool()).isTrue();
        assertThat(HARDWARE.capabilities()).contains(Capability.RECORDS_WRITES);
        assertThat(HARDWARE.backend()).isEqualTo("hard");
    }

    @Test
    void the_refusals_come_only_in_the_states_the_table_names() {
        for (CaptureState state : new CaptureState[] {NO_CAPTURE, PREPARE}) {
            assertThatCode(() -> SOFTWARE.checkEvent(state, "record()")).doesNotThrowAnyException();
            assertThatCode(() -> SOFTWARE.checkWaitForOutsideEvent(state, "event", 1))
                    .doesNotThrowAnyException();
            assertThatCode(() -> SOFTWARE.checkCopyBetweenRuntimes(state, 1)).doesNotThrowAnyException();
        }
        assertThatThrownBy(() -> SOFTWARE.checkEvent(CAPTURE, "record()"))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("MULTI_STREAM_CAPTURE");
        assertThatCode(() -> HARDWARE.checkEvent(CAPTURE, "record()")).doesNotThrowAnyException();
        assertThatThrownBy(() -> HARDWARE.checkWaitForOutsideEvent(CAPTURE, "event #3", 2))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("event #3");
        assertThatThrownBy(() -> HARDWARE.checkCopyBetweenRuntimes(CAPTURE, 2))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("stream #2");
        assertThatCode(() -> SOFTWARE.checkDiagnose(NO_CAPTURE, 1)).doesNotThrowAnyException();
        for (CaptureState state : new CaptureState[] {PREPARE, CAPTURE}) {
            assertThatThrownBy(() -> SOFTWARE.checkDiagnose(state, 4))
                    .as("diagnose in %s", state)
                    .isInstanceOf(GraphStateException.class)
                    .hasMessageContaining(state.toString());
        }
    }

    @Test
    void a_software_recording_refuses_a_declaration_of_recorded_writes_and_a_hardware_one_takes_it() {
        assertThatThrownBy(() -> new OperationPolicy("soft", Set.of(Capability.RECORDS_WRITES), GraphKind.SOFTWARE)
                        .checkDeclared(false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RECORDS_WRITES");
        assertThatCode(() -> HARDWARE.checkDeclared(false)).doesNotThrowAnyException();
        assertThatCode(() -> SOFTWARE.checkDeclared(false)).doesNotThrowAnyException();
    }

    @Test
    void collectives_are_declared_exactly_when_the_backend_offers_them() {
        OperationPolicy declaring = new OperationPolicy("soft", Set.of(Capability.COLLECTIVES), GraphKind.SOFTWARE);
        assertThatThrownBy(() -> declaring.checkDeclared(false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("declares COLLECTIVES but offers no collectives");
        assertThatThrownBy(() -> SOFTWARE.checkDeclared(true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offers collectives but does not declare COLLECTIVES");
        assertThatCode(() -> declaring.checkDeclared(true)).doesNotThrowAnyException();
    }

    @Test
    void a_collective_runs_outside_a_recording_and_is_recorded_by_the_driver_or_as_a_launch_inside_one() {
        for (CaptureState state : new CaptureState[] {CaptureState.NO_CAPTURE, CaptureState.PREPARE}) {
            assertThat(HARDWARE.collective(state, false)).as("%s", state).isEqualTo(CollectiveAction.RUN);
            assertThat(SOFTWARE.collective(state, true)).as("%s", state).isEqualTo(CollectiveAction.RUN);
        }
        assertThat(HARDWARE.collective(CaptureState.CAPTURE, false)).isEqualTo(CollectiveAction.RECORD_IN_DRIVER);
        assertThat(SOFTWARE.collective(CaptureState.CAPTURE, true)).isEqualTo(CollectiveAction.RECORD_IN_CORE);
        assertThat(SOFTWARE.collective(CaptureState.CAPTURE, false)).isEqualTo(CollectiveAction.DEFER_REJECTION);
    }

    @Test
    void communicators_need_collectives_and_are_not_made_while_recording() {
        assertThatThrownBy(() -> SOFTWARE.checkCollectives("collectives()"))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessage("soft backend does not support COLLECTIVES: collectives()");
        assertThatThrownBy(() -> SOFTWARE.checkCommunicatorSetup(CaptureState.CAPTURE, "join", 3))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("join: stream #3 is recording a capture")
                .hasMessageContaining("still intact");
        assertThatCode(() -> SOFTWARE.checkCommunicatorSetup(CaptureState.PREPARE, "join", 3))
                .doesNotThrowAnyException();
    }
}
