package dev.graphrt.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.ReleaseFailedException;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DropQueueTest {
    private static final Duration BOUND = Duration.ofMillis(50);

    private final BackendStream stream = mock(BackendStream.class);
    private final Fence fence = mock(Fence.class);
    private final List<String> released = new ArrayList<>();
    private final AtomicLong stamps = new AtomicLong();
    private final AtomicLong closedWhileHeld = new AtomicLong();
    private final DropQueue drops = new DropQueue(stream, "stream #7", stamps::incrementAndGet, closedWhileHeld::get);

    /** A hold that records its release. */
    private Retainable held(String name) {
        return new Retainable() {
            @Override
            public boolean retain() {
                return true;
            }

            @Override
            public void release() {
                released.add(name);
            }

            @Override
            public long retainedBytes() {
                return 64;
            }
        };
    }

    @Test
    void nothing_is_freed_before_its_fence() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(false);
        drops.defer("a", () -> released.add("a"));
        drops.flush();
        drops.reclaim();
        assertThat(released).isEmpty();
        when(stream.isComplete(fence)).thenReturn(true);
        drops.reclaim();
        assertThat(released).containsExactly("a");
    }

    @Test
    void a_sync_makes_every_queued_release_and_hold_safe() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(false);
        drops.defer("a", () -> released.add("fenced"));
        drops.flush();
        drops.defer("b", () -> released.add("pending"));
        drops.hold(held("buffer"));
        long epoch = drops.epoch();
        drops.releaseAllAfterSync();
        assertThat(released).containsExactly("fenced", "pending", "buffer");
        assertThat(drops.epoch())
                .as("a new epoch: the old one's holds are gone")
                .isNotEqualTo(epoch);
    }

    @Test
    void drain_waits_on_every_fence_and_runs_releases_queued_by_releases() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.await(fence, BOUND)).thenReturn(true);
        drops.defer("graph", () -> {
            released.add("graph");
            drops.defer("info", () -> released.add("its info buffer"));
        });
        drops.flush();
        assertThat(drops.drain(BOUND)).isEmpty();
        verify(stream, org.mockito.Mockito.atLeastOnce()).await(fence, BOUND);
        assertThat(released).containsExactly("graph", "its info buffer");
    }

    @Test
    void the_holds_of_an_epoch_are_released_only_after_the_fence_behind_them_completes() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(false);
        drops.hold(held("in"));
        drops.hold(held("out"));
        drops.defer("a closed buffer's handle", () -> released.add("handle"));
        drops.flush();
        assertThat(released).isEmpty();
        assertThat(drops.heldCount())
                .as("the holds moved into the fenced batch")
                .isZero();
        when(stream.isComplete(fence)).thenReturn(true);
        drops.reclaim();
        assertThat(released).containsExactly("handle", "in", "out");
    }

    @Test
    void holds_alone_are_fenced_only_once_a_buffer_was_closed_while_held() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(true);
        drops.hold(held("in"));
        drops.flush();
        verify(stream, never()).recordFence();
        assertThat(released).isEmpty();

        closedWhileHeld.incrementAndGet();
        drops.flush();
        assertThat(released).containsExactly("in");
    }

    @Test
    void one_failing_release_does_not_keep_the_others_from_running_and_is_reported_naming_what_failed() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(true);
        drops.defer("graph #3 (destroy)", () -> {
            throw new IllegalStateException("destroy failed");
        });
        drops.defer("graph #3 (pins)", () -> released.add("pins"));
        drops.hold(held("buffer"));
        drops.defer("graph #4 (destroy)", () -> {
            throw new IllegalStateException("destroy failed again");
        });
        drops.flush();

        assertThat(released).containsExactly("pins", "buffer");
        ReleaseFailedException failure = drops.takeFailures().orElseThrow();
        assertThat(failure.resources()).containsExactly("graph #3 (destroy)", "graph #4 (destroy)");
        assertThat(failure)
                .hasMessageContaining("stream #7")
                .hasMessageContaining("graph #3 (destroy)")
                .hasRootCauseMessage("destroy failed");
        assertThat(failure.getCause().getSuppressed()).hasSize(1);
        assertThat(drops.takeFailures()).as("reported once").isEmpty();
    }

    @Test
    void a_failure_after_one_was_reported_is_reported_alone() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(true);
        drops.defer("graph #3 (destroy)", () -> {
            throw new IllegalStateException("destroy failed");
        });
        drops.flush();
        assertThat(drops.takeFailures().orElseThrow().resources()).containsExactly("graph #3 (destroy)");

        drops.defer("graph #5 (destroy)", () -> {
            throw new IllegalStateException("destroy failed later");
        });
        drops.flush();

        ReleaseFailedException later = drops.takeFailures().orElseThrow();
        assertThat(later.resources()).containsExactly("graph #5 (destroy)");
        assertThat(later).hasMessageNotContaining("graph #3").hasRootCauseMessage("destroy failed later");
    }

    @Test
    void a_fence_that_never_completes_ends_flush_and_wait_with_a_typed_timeout_naming_the_stream() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.await(fence, BOUND)).thenReturn(false);
        drops.defer("a", () -> released.add("a"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> drops.flushAndWait(BOUND, "the warm-up pass"))
                .isInstanceOf(WaitTimeoutException.class)
                .hasMessageContaining("stream #7")
                .hasMessageContaining("the warm-up pass");
        assertThat(released).as("nothing released behind an unfinished fence").isEmpty();
    }

    @Test
    void drain_gives_up_on_a_stuck_fence_without_throwing_and_keeps_what_it_guards_held() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.await(fence, BOUND)).thenReturn(false);
        drops.hold(held("buffer"));
        assertThat(drops.drain(BOUND)).get().isInstanceOf(WaitTimeoutException.class);
        assertThat(released).isEmpty();
        assertThat(drops.inFlightBatches()).isZero();
    }

    @Test
    void a_raw_fence_query_failure_reaches_the_caller_as_a_driver_exception() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenThrow(new IllegalStateException("query broke"));
        drops.defer("a", () -> released.add("a"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> drops.flush())
                .isInstanceOf(DriverException.class)
                .hasRootCauseMessage("query broke");
        assertThat(drops.inFlightBatches())
                .as("the batch waits for a later query")
                .isEqualTo(1);
    }
}
