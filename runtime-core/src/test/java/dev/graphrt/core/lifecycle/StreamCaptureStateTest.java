package dev.graphrt.core.lifecycle;

import static dev.graphrt.api.CaptureState.CAPTURE;
import static dev.graphrt.api.CaptureState.NO_CAPTURE;
import static dev.graphrt.api.CaptureState.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.core.metadata.CacheMode;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StreamCaptureStateTest {

    /** Every (state, call) pair: the state after the call, or null when the call must be refused. */
    static Stream<Arguments> every_state_and_call() {
        return Stream.of(
                Arguments.of(NO_CAPTURE, "prepare", PREPARE, null),
                Arguments.of(NO_CAPTURE, "begin", null, "call prepare() before starting a capture"),
                Arguments.of(NO_CAPTURE, "end", null, "there is no capture to end"),
                Arguments.of(NO_CAPTURE, "cancel", null, "nothing to cancel"),
                Arguments.of(NO_CAPTURE, "abort", NO_CAPTURE, null),
                Arguments.of(PREPARE, "prepare", null, "already prepared"),
                Arguments.of(PREPARE, "begin", CAPTURE, null),
                Arguments.of(PREPARE, "end", null, "call beginCapture() first"),
                Arguments.of(PREPARE, "cancel", NO_CAPTURE, null),
                Arguments.of(PREPARE, "abort", NO_CAPTURE, null),
                Arguments.of(CAPTURE, "prepare", null, "a capture is recording"),
                Arguments.of(CAPTURE, "begin", null, "already recording"),
                Arguments.of(CAPTURE, "end", NO_CAPTURE, null),
                Arguments.of(CAPTURE, "cancel", NO_CAPTURE, null),
                Arguments.of(CAPTURE, "abort", NO_CAPTURE, null));
    }

    static StreamCaptureState in(CaptureState wanted) {
        StreamCaptureState state = new StreamCaptureState();
        if (wanted != NO_CAPTURE) {
            state.prepare();
        }
        if (wanted == CAPTURE) {
            state.begin();
        }
        return state;
    }

    static Consumer<StreamCaptureState> call(String name) {
        return switch (name) {
            case "prepare" -> StreamCaptureState::prepare;
            case "begin" -> StreamCaptureState::begin;
            case "end" -> StreamCaptureState::end;
            case "cancel" -> StreamCaptureState::cancel;
            case "abort" -> StreamCaptureState::abort;
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest(name = "{1} from {0} -> {2}")
    @MethodSource("every_state_and_call")
    @DisplayName("every (state, call) pair moves as the table says or is refused changing nothing")
    void every_state_and_call_follows_the_table(CaptureState from, String callName, CaptureState to, String hint) {
        StreamCaptureState state = in(from);
        if (to != null) {
            call(callName).accept(state);
            assertThat(state.current()).isEqualTo(to);
        } else {
            assertThatThrownBy(() -> call(callName).accept(state))
                    .isInstanceOf(GraphStateException.class)
                    .hasMessageContaining(from.name())
                    .hasMessageContaining(hint);
            assertThat(state.current())
                    .as("a rejected transition changes nothing")
                    .isEqualTo(from);
        }
    }

    @Test
    void require_throws_exactly_what_the_transition_would_and_never_moves_the_state() {
        for (CaptureState from : CaptureState.values()) {
            for (StreamCaptureState.Call call : StreamCaptureState.Call.values()) {
                String name = switch (call) {
                    case PREPARE -> "prepare";
                    case BEGIN -> "begin";
                    case END -> "end";
                    case CANCEL -> "cancel";
                };
                StreamCaptureState state = in(from);
                Throwable required = org.assertj.core.api.Assertions.catchThrowable(() -> state.require(call));
                assertThat(state.current())
                        .as("require(%s) from %s moves nothing", call, from)
                        .isEqualTo(from);
                Throwable moved = org.assertj.core.api.Assertions.catchThrowable(
                        () -> call(name).accept(state));
                if (moved == null) {
                    assertThat(required).as("require(%s) from %s", call, from).isNull();
                } else {
                    assertThat(required)
                            .as("require(%s) from %s", call, from)
                            .isInstanceOf(GraphStateException.class)
                            .hasMessage(moved.getMessage())
                            .hasMessageStartingWith(call.method() + ": ");
                }
            }
        }
    }

    @Test
    void a_rejected_transition_changes_nothing() {
        StreamCaptureState state = in(PREPARE);
        assertThatThrownBy(state::prepare).isInstanceOf(GraphStateException.class);
        assertThatThrownBy(state::end).isInstanceOf(GraphStateException.class);
        assertThat(state.current()).isEqualTo(PREPARE);
        assertThat(state.cacheMode()).isEqualTo(CacheMode.CAPTURE);
        state.begin();
        assertThat(state.isRecording()).isTrue();
    }

    @Test
    void abort_recovers_from_prepare_and_capture_and_the_stream_can_capture_again() {
        for (CaptureState from : new CaptureState[] {PREPARE, CAPTURE}) {
            StreamCaptureState state = in(from);
            state.abort();
            assertThat(state.current()).isEqualTo(NO_CAPTURE);
            state.prepare();
            state.begin();
            state.end();
            assertThat(state.current()).isEqualTo(NO_CAPTURE);
        }
    }

    @Test
    void the_metadata_cache_is_in_capture_mode_across_the_whole_prepare_and_capture_window() {
        assertThat(in(NO_CAPTURE).cacheMode()).isEqualTo(CacheMode.NORMAL);
        assertThat(in(PREPARE).cacheMode()).isEqualTo(CacheMode.CAPTURE);
        assertThat(in(CAPTURE).cacheMode()).isEqualTo(CacheMode.CAPTURE);
        assertThat(in(PREPARE).isRecording()).isFalse();
        assertThat(in(CAPTURE).isRecording()).isTrue();
    }
}
