package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    void more_capture_ends_than_starts_are_reported_instead_of_clamped() {
        releases.captureStarting();
        releases.captureEnded();

        assertThatThrownBy(releases::captureEnded)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without a matching captureStarting");
        releases.release(() -> ran.add("after"));
        assertThat(ran).as("no capture runs: a release runs at once").containsExactly("after");
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

    @Test
    void a_capture_begun_between_the_check_and_the_release_waits_until_the_release_finished() throws Exception {
        CountDownLatch releaseRunning = new CountDownLatch(1);
        CountDownLatch letReleaseFinish = new CountDownLatch(1);
        AtomicBoolean released = new AtomicBoolean();
        Thread releaser = Thread.ofPlatform()
                .start(() -> releases.release(() -> {
                    releaseRunning.countDown(); // past the check: nothing captured when it was made
                    awaitQuietly(letReleaseFinish);
                    released.set(true);
                }));
        assertThat(releaseRunning.await(5, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Boolean> captureBegan = CompletableFuture.supplyAsync(() -> {
            releases.captureStarting();
            return released.get();
        });
        Thread.sleep(200);
        assertThat(captureBegan).isNotDone();

        letReleaseFinish.countDown();
        assertThat(captureBegan.get(5, TimeUnit.SECONDS))
                .as("the release had finished when the capture began")
                .isTrue();
        releaser.join(5_000);
    }

    @Test
    void a_release_asked_for_by_another_thread_while_a_capture_runs_is_deferred_to_its_end() throws Exception {
        releases.captureStarting();

        Thread other = Thread.ofPlatform().start(() -> releases.release(() -> ran.add("graph")));
        other.join(5_000);
        assertThat(ran).isEmpty();

        releases.captureEnded();
        assertThat(ran).containsExactly("graph");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
