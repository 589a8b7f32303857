package dev.graphrt.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The doctor lists every provider with its probe result and self-tests the cpu backend exactly. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DoctorTest {
    @Test
    void it_lists_every_provider_and_the_cpu_self_test_passes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean passed = Doctor.run(List.of("cpu"), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String report = bytes.toString(StandardCharsets.UTF_8);

        assertThat(passed).as(report).isTrue();
        assertThat(report)
                .contains(
                        "providers (name, priority, probe result):",
                        "  cpu ",
                        "  cuda ",
                        "  hip ",
                        "  wgpu ",
                        "cpu: self-test OK (16 launches captured, replayed twice, 4096 results exact");
        assertThat(report)
                .as("the cpu device is listed with its ordinal")
                .containsPattern("(?m)^  cpu:0 .* graphs\\) declares ");
    }
}
