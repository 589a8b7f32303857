package dev.graphrt.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.CaptureRejectedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class MemoryModelTest {
    private static final long PAGE = 1 << 16;
    private static final long MAX_POOLED = 1 << 12;

    private final CountingDeviceMemory device = new CountingDeviceMemory();
    private final MemoryManager memory = new MemoryManager("fake", device, new PoolConfig(PAGE, MAX_POOLED, 256));

    /** One warm-up pass of the pattern the issue names: reserve and drop one size three times in sequence. */
    private static void reserveAndDropThreeTimes(MemoryManager memory, CaptureMemorySession session, long size) {
        for (int i = 0; i < 3; i++) {
            memory.release(session.allocate(size));
        }
    }

    @Nested
    class Pinning {
        @Test
        void a_reused_persistent_slice_is_pinned_and_while_pinned_a_later_reserve_must_grow_the_pool() {
            CaptureMemorySession first = memory.openSession(1, true);
            PoolSlice slice = first.allocate(4096);
            memory.release(slice);
            first.abort();
            assertThat(memory.persistentSliceCount()).isEqualTo(1);

            CaptureMemorySession window = memory.openSession(1, true);
            window.endPriming();
            PoolSlice reused = window.allocate(4096);
            assertThat(reused).as("taken by the recorded run").isSameAs(slice);
            memory.release(reused);
            window.pinTo(7);
            assertThat(reused.pins()).isEqualTo(1);

            CaptureMemorySession later = memory.openSession(2, true);
            PoolSlice fresh = later.allocate(4096);
            assertThat(fresh).isNotSameAs(slice);
            assertThat(memory.persistentSliceCount()).as("the pool had to grow").isEqualTo(2);
        }

        @Test
        void a_pre_existing_slice_freed_and_reused_inside_the_window_is_pinned() {
            CaptureMemorySession earlier = memory.openSession(1, true);
            PoolSlice old = earlier.allocate(8192);
            earlier.endPriming();
            earlier.pinTo(1);
            memory.release(old);
            memory.unpin(1);

            CaptureMemorySession window = memory.openSession(1, true);
            window.endPriming();
            PoolSlice reused = window.allocate(8192);
            assertThat(reused).isSameAs(old);
            long pinned = window.pinTo(2);
            assertThat(pinned).isEqualTo(8192);
            assertThat(memory.stats(0).pinnedPerGraph()).containsEntry(2L, 8192L);
            assertThat(old.pins()).isEqualTo(1);
        }

        @Test
        void free_slices_the_capture_never_touched_are_not_retained() {
            CaptureMemorySession earlier = memory.openSession(1, true);
            PoolSlice untouched = earlier.allocate(2048);
            memory.release(untouched);
            earlier.abort();

            CaptureMemorySession window = memory.openSession(1, true);
            window.endPriming();
            memory.release(window.allocate(1024));
            assertThat(window.pinTo(3)).isEqualTo(1024);
            assertThat(untouched.pins()).isZero();
            memory.trim();
            assertThat(device.liveBytes())
                    .as("the untouched 2048-byte slice went back to the device")
                    .isEqualTo(1024);
        }

        @Test
        void an_explicit_cleanup_during_capture_does_not_release_anything_the_window_holds() {
            CaptureMemorySession window = memory.openSession(1, true);
            PoolSlice primed = window.allocate(4096);
            memory.release(primed);
            window.endPass();
            window.endPriming();
            PoolSlice live = window.allocate(4096);
            assertThat(live).isSameAs(primed);
            PoolSlice second = window.allocate(1024);
            memory.release(second);
            long before = device.liveBytes();
            assertThat(memory.trim()).isZero();
            assertThat(device.liveBytes()).isEqualTo(before);
            assertThat(window.pinTo(4)).isEqualTo(4096 + 1024);
        }

        @Test
        void closing_the_graph_unpins_and_trim_then_returns_every_byte() {
            CaptureMemorySession window = memory.openSession(1, true);
            memory.release(window.allocate(4096));
            window.endPriming();
            PoolSlice captured = window.allocate(4096);
            window.pinTo(5);
            memory.release(captured);
            assertThat(memory.trim()).as("pinned slices survive a trim").isZero();
            memory.unpin(5);
            memory.trim();
            assertThat(device.liveBytes()).isZero();
            assertThat(memory.stats(0).reservedBytes()).isZero();
        }
    }

    @Nested
    class Priming {
        @Test
        void priming_keeps_the_working_set_not_the_peak() {
            CaptureMemorySession window = memory.openSession(1, false);
            reserveAndDropThreeTimes(memory, window, 4096);
            long afterOnePass = memory.stats(0).reservedBytes();
            assertThat(afterOnePass)
                    .as("three sequential reserves of a held size need three slices")
                    .isEqualTo(3 * 4096);
            window.endPriming();
            List<PoolSlice> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(window.allocate(4096));
            }
            assertThat(memory.stats(0).reservedBytes())
                    .as("holding three at once does not grow the pool")
                    .isEqualTo(afterOnePass);
            assertThat(held).doesNotHaveDuplicates();
        }

        @Test
        void three_warm_up_passes_pin_exactly_the_bytes_one_pass_pins() {
            long onePass = pinnedAfterWarmups(1);
            long threePasses = pinnedAfterWarmups(3);
            // The recorded run here releases at once (a stream defers it), so it reuses one 4096-byte slice.
            assertThat(threePasses).isEqualTo(onePass).isEqualTo(4096 + 1024);
        }

        private long pinnedAfterWarmups(int passes) {
            MemoryManager fresh =
                    new MemoryManager("fake", new CountingDeviceMemory(), new PoolConfig(PAGE, MAX_POOLED, 256));
            CaptureMemorySession window = fresh.openSession(1, false);
            for (int pass = 0; pass < passes; pass++) {
                reserveAndDropThreeTimes(fresh, window, 4096);
                fresh.release(window.allocate(1000));
                window.endPass();
            }
            window.endPriming();
            reserveAndDropThreeTimes(fresh, window, 4096);
            window.allocate(1000);
            return window.pinTo(1);
        }

        @Test
        void a_slice_only_the_warm_up_took_is_not_pinned_and_is_free_once_its_buffer_closes() {
            CaptureMemorySession window = memory.openSession(1, false);
            PoolSlice warmup = window.allocate(4096);
            memory.release(warmup);
            window.endPass();
            window.endPriming();
            assertThat(window.pinTo(3)).as("the recorded run took nothing").isZero();
            assertThat(warmup.pins()).isZero();
            assertThat(memory.stats(0).persistentFreeBytes()).isEqualTo(4096);
        }

        @Test
        void an_output_the_warm_up_keeps_open_leaves_the_recorded_run_a_free_slice_of_its_size() {
            CaptureMemorySession window = memory.openSession(1, false);
            PoolSlice output = window.allocate(4096);
            memory.release(window.allocate(4096));
            window.endPass();
            window.endPriming();
            PoolSlice recordedOutput = window.allocate(4096);
            PoolSlice recordedTemp = window.allocate(4096);
            assertThat(recordedOutput).isNotSameAs(output);
            assertThat(recordedTemp).isNotSameAs(output).isNotSameAs(recordedOutput);
            assertThat(window.doomed())
                    .as("no allocation of the recorded run had to grow the pool")
                    .isEmpty();
        }

        @Test
        void priming_holds_dropped_slices_until_priming_ends() {
            CaptureMemorySession window = memory.openSession(1, false);
            PoolSlice first = window.allocate(4096);
            memory.release(first);
            PoolSlice second = window.allocate(4096);
            assertThat(second)
                    .as("a primed slice is held after its buffer closed")
                    .isNotSameAs(first);
            memory.release(second);
            window.endPriming();
            assertThat(window.allocate(4096)).isIn(first, second);
        }

        @Test
        void an_abort_without_begin_having_ended_priming_still_releases_the_held_slices() {
            CaptureMemorySession window = memory.openSession(1, false);
            for (int i = 0; i < 4; i++) {
                memory.release(window.allocate(4096));
            }
            window.abort();
            assertThat(memory.stats(0).persistentFreeBytes()).isEqualTo(4 * 4096);
            memory.trim();
            assertThat(device.liveBytes()).isZero();
        }
    }

    @Nested
    class Capture_window_allocation {
        @Test
        void a_hardware_graph_window_that_would_grow_the_pool_is_refused_at_the_call_and_dooms_the_capture() {
            CaptureMemorySession window = memory.openSession(9, false);
            window.endPriming();
            int before = device.allocations();
            assertThatThrownBy(() -> window.allocate(3_145_733))
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("3145984 bytes")
                    .hasMessageContaining("Warm up with the same shapes");
            assertThat(device.allocations()).as("the driver was not called").isEqualTo(before);
            assertThat(window.doomed())
                    .hasValueSatisfying(reason -> assertThat(reason).contains("stream #9"));
        }

        @Test
        void info_headroom_lets_a_hardware_window_take_small_slices_without_the_driver_and_unused_ones_stay_unpinned() {
            CaptureMemorySession window = memory.openSession(9, false);
            window.ensureFree(1, 4);
            window.ensureFree(1, 4);
            assertThat(memory.persistentSliceCount())
                    .as("topped up, not doubled")
                    .isEqualTo(4);
            window.endPriming();
            int before = device.allocations();
            PoolSlice info = window.allocate(12);
            assertThat(device.allocations()).isEqualTo(before);
            assertThat(window.doomed()).isEmpty();
            assertThat(window.pinTo(3)).as("only the slice taken is pinned").isEqualTo(256);
            assertThat(info.pins()).isEqualTo(1);
            assertThat(memory.stats(0).persistentFreeBytes()).isEqualTo(3 * 256);
        }

        @Test
        void a_software_graph_window_grows_and_pins_the_new_slice() {
            CaptureMemorySession window = memory.openSession(9, true);
            window.endPriming();
            PoolSlice grown = window.allocate(3_145_733);
            assertThat(grown.capacity()).isEqualTo(3_145_984);
            assertThat(window.doomed()).isEmpty();
            assertThat(window.pinTo(2)).isEqualTo(3_145_984);
            assertThat(grown.pins()).isEqualTo(1);
        }
    }

    @Nested
    class Dynamic_pool {
        @Test
        void small_sizes_share_pages_and_come_back_to_the_same_slot() {
            PoolSlice a = memory.allocateDynamic(100);
            PoolSlice b = memory.allocateDynamic(200);
            assertThat(device.allocations())
                    .as("one page serves the whole class")
                    .isEqualTo(1);
            assertThat(a.storage().allocation()).isSameAs(b.storage().allocation());
            assertThat(a.storage().offset() % 256).isZero();
            memory.release(a);
            assertThat(memory.allocateDynamic(256)).isSameAs(a);
            memory.release(b);
        }

        @Test
        void sizes_above_the_largest_class_get_their_own_allocation_and_are_reused_by_exact_size() {
            PoolSlice big = memory.allocateDynamic(MAX_POOLED + 1);
            assertThat(big.capacity()).isEqualTo(MAX_POOLED + 256);
            memory.release(big);
            assertThat(memory.allocateDynamic(MAX_POOLED + 10)).isSameAs(big);
        }

        @Test
        void trim_frees_only_pages_with_nothing_in_use() {
            PoolSlice kept = memory.allocateDynamic(1024);
            PoolSlice dropped = memory.allocateDynamic(MAX_POOLED * 2);
            memory.release(dropped);
            memory.trim();
            assertThat(device.liveBytes()).isEqualTo(PAGE);
            memory.release(kept);
            memory.trim();
            assertThat(device.liveBytes()).isZero();
        }

        @Test
        void releasing_twice_is_detected() {
            PoolSlice slice = memory.allocateDynamic(64);
            memory.release(slice);
            assertThatThrownBy(() -> memory.release(slice)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void stats_account_reserved_in_use_free_and_pinned_bytes() {
        memory.allocateDynamic(512);
        CaptureMemorySession window = memory.openSession(1, true);
        window.endPriming();
        PoolSlice a = window.allocate(4096);
        memory.release(window.allocate(8192));
        window.pinTo(11);
        memory.release(a);
        var stats = memory.stats(0);
        assertThat(stats.reservedBytes()).isEqualTo(PAGE + 4096 + 8192);
        assertThat(stats.pinnedBytes()).isEqualTo(4096 + 8192);
        assertThat(stats.pinnedPerGraph()).containsExactly(java.util.Map.entry(11L, 4096L + 8192L));
        assertThat(stats.persistentFreeBytes()).isZero();
        memory.unpin(11);
        assertThat(memory.stats(0).persistentFreeBytes()).isEqualTo(4096 + 8192);
    }
}
