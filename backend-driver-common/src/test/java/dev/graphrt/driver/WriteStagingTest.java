package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WriteStagingTest {
    private static final long CHUNK = 64L << 10;

    private final FakeEvents events = new FakeEvents();
    private final EventFences<Integer> fences = new EventFences<>(events);
    private final FakePinnedMemory pinned = new FakePinnedMemory();
    private final WriteStaging staging = new WriteStaging(pinned, fences, CHUNK, 3);
    /** Each enqueued copy: destination and the staged bytes as they are at enqueue time. */
    private final List<Copy> copies = new ArrayList<>();

    private final WriteStaging.Copier copier =
            (dst, staged) -> copies.add(new Copy(dst, staged, staged.toArray(JAVA_BYTE)));

    private record Copy(long dst, MemorySegment staged, byte[] bytes) {}

    @AfterEach
    void release() {
        pinned.close();
    }

    private static MemorySegment bytes(int count, int seed) {
        byte[] data = new byte[count];
        for (int i = 0; i < count; i++) {
            data[i] = (byte) (seed + i * 7);
        }
        return MemorySegment.ofArray(data);
    }

    @Test
    void small_writes_share_one_chunk_and_record_no_event() {
        for (int i = 0; i < 100; i++) {
            staging.write(1000L * i, bytes(4, i), copier);
        }

        assertThat(pinned.allocated).hasSize(1);
        assertThat(events.records).isZero();
        assertThat(copies).hasSize(100);
        assertThat(copies.get(42).dst()).isEqualTo(42_000L);
        assertThat(copies.get(42).bytes()).containsExactly(bytes(4, 42).toArray(JAVA_BYTE));
    }

    @Test
    void staged_pieces_do_not_overlap_within_a_chunk() {
        staging.write(0, bytes(5, 1), copier);
        staging.write(0, bytes(5, 2), copier);

        long first = copies.get(0).staged().address();
        long second = copies.get(1).staged().address();
        assertThat(second - first).isEqualTo(WriteStaging.PIECE_ALIGNMENT);
        assertThat(copies.get(0).staged().toArray(JAVA_BYTE))
                .containsExactly(bytes(5, 1).toArray(JAVA_BYTE));
    }

    @Test
    void a_write_larger_than_a_chunk_is_split_into_pieces_that_land_at_the_right_offsets() {
        MemorySegment big = bytes((int) (CHUNK * 2 + 100), 3);

        staging.write(5000, big, copier);

        long covered = 0;
        for (Copy copy : copies) {
            assertThat(copy.dst()).isEqualTo(5000 + covered);
            assertThat(copy.bytes())
                    .containsExactly(big.asSlice(covered, copy.bytes().length).toArray(JAVA_BYTE));
            covered += copy.bytes().length;
        }
        assertThat(covered).isEqualTo(big.byteSize());
        assertThat(copies).hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void a_chunk_is_fenced_when_the_ring_moves_on_and_reused_only_after_its_fence_completed() {
        MemorySegment almostChunk = bytes((int) CHUNK - 64, 9);
        staging.write(0, almostChunk, copier); // chunk A
        staging.write(0, almostChunk, copier); // A fenced, chunk B
        assertThat(events.records).isEqualTo(1);
        assertThat(pinned.allocated).hasSize(2);

        events.completeAll(); // A's copies finished on the device
        staging.write(0, almostChunk, copier); // B fenced, A reused

        assertThat(pinned.allocated).hasSize(2);
        assertThat(copies.get(2).staged().address())
                .isEqualTo(copies.get(0).staged().address());
    }

    @Test
    void a_chunk_still_being_copied_is_never_overwritten_while_the_ring_can_grow() {
        MemorySegment almostChunk = bytes((int) CHUNK - 64, 9);
        staging.write(0, almostChunk, copier);
        staging.write(0, almostChunk, copier);
        staging.write(0, almostChunk, copier); // nothing completed: a third chunk

        assertThat(pinned.allocated).hasSize(3);
        assertThat(copies).extracting(c -> c.staged().address()).doesNotHaveDuplicates();
        assertThat(events.synchronizations).isZero();
    }

    @Test
    void a_full_ring_waits_for_the_oldest_chunk_instead_of_growing() {
        MemorySegment almostChunk = bytes((int) CHUNK - 64, 9);
        for (int i = 0; i < 4; i++) {
            staging.write(0, almostChunk, copier);
        }

        assertThat(pinned.allocated).hasSize(3);
        assertThat(events.synchronizations).isEqualTo(1);
        assertThat(copies.get(3).staged().address())
                .isEqualTo(copies.get(0).staged().address());
    }

    @Test
    void after_a_stream_synchronisation_every_chunk_is_free_again() {
        MemorySegment almostChunk = bytes((int) CHUNK - 64, 9);
        staging.write(0, almostChunk, copier);
        staging.write(0, almostChunk, copier);
        fences.allComplete();
        staging.allComplete();

        staging.write(0, almostChunk, copier);
        staging.write(0, almostChunk, copier);

        assertThat(pinned.allocated).hasSize(2);
        assertThat(events.synchronizations).isZero();
        assertThat(copies.subList(2, 4))
                .extracting(c -> c.staged().address())
                .containsExactlyInAnyOrderElementsOf(copies.subList(0, 2).stream()
                        .map(c -> c.staged().address())
                        .toList());
    }

    @Test
    void closing_frees_every_chunk() {
        staging.write(0, bytes((int) CHUNK * 2, 1), copier);

        staging.close();

        assertThat(pinned.freed).containsExactlyInAnyOrderElementsOf(pinned.allocated);
    }
}
