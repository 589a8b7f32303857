package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The names a refusal message is built from: each call's method, and the state as the user sees it. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class StreamCaptureStateNamesTest {
    @Test
    void every_call_names_its_public_method_and_the_state_prints_as_its_name() {
        assertThat(java.util.Arrays.stream(StreamCaptureState.Call.values()).map(StreamCaptureState.Call::method))
                .containsExactly("prepare", "beginCapture", "endCapture", "cancelCapture");
        assertThat(new StreamCaptureState().toString()).isEqualTo("NO_CAPTURE");
    }
}
