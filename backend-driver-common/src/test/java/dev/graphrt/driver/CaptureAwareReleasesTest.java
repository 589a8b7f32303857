package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CaptureAwareReleasesTest {
    private final CaptureAwareReleases releases = new CaptureAwareReleases("test");
    private final List<String> ran = new ArrayList<>();

    @Test
    void a_release_runs_at_once_when_nothing_captures() {
        releases.release(() -> ran.add("graph"));

        assertThat(ran).containsExactly("graph");
    }

    @Test
    void a_release_during_a_capture_waits_until_the_last_capture_ended() {
        releases.captureStarting();
        releases.captureStarting();

        releases.release(() -> ran.add("graph"));
        releases.captureEnded();
        assertThat(ran).isEmpty();
        assertThat(releases.pendingCount()).isEqualTo(1);

        releases.captureEnded();
        assertThat(ran).containsExactly("graph");
        assertThat(releases.pendingCount()).isZero();
    }

    @Test
    void a_failing_deferred_release_does_not_stop_the_others() {
        releases.captureStarting();
        releases.release(() -> {
            throw new IllegalStateException("boom");
        });
        releases.release(() -> ran.add("second"));

        releases.captureEnded();

        assertThat(ran).containsExactly("second");
    }
}
