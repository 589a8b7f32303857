package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class FailuresTest {

    @Test
    void every_step_runs_and_the_first_failure_is_thrown_with_the_later_ones_suppressed() {
        List<String> ran = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("first");
        IllegalArgumentException second = new IllegalArgumentException("second");

        assertThatThrownBy(() -> Failures.runAll(List.of(
                        () -> ran.add("a"),
                        () -> {
                            ran.add("b");
                            throw first;
                        },
                        () -> {
                            ran.add("c");
                            throw second;
                        },
                        () -> ran.add("d"))))
                .isSameAs(first);
        assertThat(ran).containsExactly("a", "b", "c", "d");
        assertThat(first.getSuppressed()).containsExactly(second);
    }

    @Test
    void steps_that_all_succeed_throw_nothing_and_leave_no_failure() {
        assertThat(Failures.attempt(null, () -> {})).isNull();
        RuntimeException earlier = new RuntimeException("earlier");
        assertThat(Failures.attempt(earlier, () -> {})).isSameAs(earlier);
        assertThat(earlier.getSuppressed()).isEmpty();
    }
}
