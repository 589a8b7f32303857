package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.spi.Fence;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EventFencesTest {
    private final FakeEvents events = new FakeEvents();
    private final EventFences<Integer> fences = new EventFences<>(events);

    @Test
    void a_fence_is_incomplete_until_the_work_before_it_finished() {
        Fence fence = fences.record();

        assertThat(fences.isComplete(fence)).isFalse();
        events.completeAll();
        assertThat(fences.isComplete(fence)).isTrue();
    }

    @Test
    void events_of_completed_fences_are_recycled_instead_of_created() {
        for (int i = 0; i < 100; i++) {
            Fence fence = fences.record();
            events.completeAll();
            assertThat(fences.isComplete(fence)).isTrue();
        }

        assertThat(events.created).isEqualTo(1);
        assertThat(fences.eventCount()).isEqualTo(1);
    }

    @Test
    void fences_nobody_asked_about_are_reclaimed_once_the_device_passed_them() {
        for (int i = 0; i < 10; i++) {
            fences.record();
        }
        events.completeAll();

        fences.record();

        assertThat(events.created).isEqualTo(10);
        assertThat(fences.outstandingCount()).isEqualTo(1);
    }

    @Test
    void a_completed_fence_stays_complete_after_its_event_was_reused() {
        Fence old = fences.record();
        events.completeAll();
        assertThat(fences.isComplete(old)).isTrue();

        Fence newer = fences.record(); // reuses old's event, not yet complete

        assertThat(fences.isComplete(newer)).isFalse();
        assertThat(fences.isComplete(old)).isTrue();
    }

    @Test
    void seeing_one_fence_complete_completes_every_older_one() {
        Fence first = fences.record();
        Fence second = fences.record();
        Fence third = fences.record();
        events.completeAll();

        assertThat(fences.isComplete(second)).isTrue();

        assertThat(fences.outstandingCount()).isEqualTo(1);
        int queriesBefore = events.queries;
        assertThat(fences.isComplete(first)).isTrue(); // answered without asking the driver
        assertThat(events.queries).isEqualTo(queriesBefore);
        assertThat(fences.isComplete(third)).isTrue();
    }

    @Test
    void await_waits_on_the_event_once_and_then_answers_from_memory() {
        Fence fence = fences.record();

        fences.await(fence);
        fences.await(fence);

        assertThat(events.synchronizations).isEqualTo(1);
        assertThat(fences.isComplete(fence)).isTrue();
    }

    @Test
    void a_full_synchronisation_completes_every_fence() {
        Fence a = fences.record();
        Fence b = fences.record();

        fences.allComplete();

        assertThat(fences.isComplete(a)).isTrue();
        assertThat(fences.isComplete(b)).isTrue();
        assertThat(fences.outstandingCount()).isZero();
    }

    @Test
    void a_fence_of_another_stream_is_refused() {
        EventFences<Integer> other = new EventFences<>(new FakeEvents());
        Fence foreign = other.record();

        assertThatThrownBy(() -> fences.isComplete(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not recorded on this stream");
    }

    @Test
    void closing_destroys_every_event_once_and_outstanding_fences_read_complete() {
        Fence pending = fences.record();
        fences.record();

        fences.close();
        fences.close();

        assertThat(events.destroyed).containsExactlyInAnyOrder(0, 1);
        assertThat(fences.isComplete(pending)).isTrue();
        assertThatThrownBy(fences::record).isInstanceOf(IllegalStateException.class);
    }
}
