package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CapturedHostCopiesTest {
    private final FakePinnedMemory pinned = new FakePinnedMemory();
    private final CapturedHostCopies copies = new CapturedHostCopies(pinned);

    @AfterEach
    void release() {
        pinned.close();
    }

    @Test
    void a_staged_copy_keeps_the_bytes_even_after_the_caller_changes_its_array() {
        int[] token = {7};

        MemorySegment staged = copies.stage(MemorySegment.ofArray(token));
        token[0] = 8;

        assertThat(staged.get(JAVA_INT, 0)).isEqualTo(7);
        assertThat(staged.isNative()).isTrue();
    }

    @Test
    void writes_within_the_reservation_allocate_nothing_more() {
        copies.reserve(3 * 16);
        int allocationsAfterReserve = pinned.allocated.size();

        copies.stage(MemorySegment.ofArray(new int[] {1}));
        copies.stage(MemorySegment.ofArray(new int[] {2, 3}));
        copies.stage(MemorySegment.ofArray(new int[] {4, 5, 6}));

        assertThat(allocationsAfterReserve).isEqualTo(1);
        assertThat(pinned.allocated).hasSize(1);
    }

    @Test
    void no_reservation_means_no_allocation_until_something_is_written() {
        copies.reserve(0);

        assertThat(pinned.allocated).isEmpty();
        assertThat(copies.transfer()).isEmpty();
    }

    @Test
    void staged_copies_never_overlap() {
        MemorySegment a = copies.stage(MemorySegment.ofArray(new int[] {1}));
        MemorySegment b = copies.stage(MemorySegment.ofArray(new int[] {2}));

        assertThat(b.address() - a.address()).isGreaterThanOrEqualTo(4);
        assertThat(a.get(JAVA_INT, 0)).isEqualTo(1);
        assertThat(b.get(JAVA_INT, 0)).isEqualTo(2);
    }

    @Test
    void a_write_larger_than_the_current_block_gets_a_block_of_its_own() {
        copies.stage(MemorySegment.ofArray(new int[] {1}));

        MemorySegment big = copies.stage(MemorySegment.ofArray(new byte[100_000]));

        assertThat(pinned.allocated).hasSize(2);
        assertThat(big.byteSize()).isEqualTo(100_000);
        assertThat(pinned.allocated.get(1).byteSize()).isGreaterThanOrEqualTo(100_000);
    }

    @Test
    void transfer_hands_every_block_to_the_graph_and_keeps_none() {
        copies.stage(MemorySegment.ofArray(new byte[10]));
        copies.stage(MemorySegment.ofArray(new byte[100_000]));

        List<MemorySegment> moved = copies.transfer();
        copies.free();

        assertThat(moved).containsExactlyElementsOf(pinned.allocated);
        assertThat(pinned.freed).isEmpty();
    }

    @Test
    void free_returns_every_block_of_an_aborted_capture() {
        copies.stage(MemorySegment.ofArray(new byte[10]));
        copies.stage(MemorySegment.ofArray(new byte[100_000]));

        copies.free();

        assertThat(pinned.freed).containsExactlyInAnyOrderElementsOf(pinned.allocated);
    }
}
