package dev.graphrt.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.MemoryStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The manager's books, exactly: what a size class rounds to, what each pool reserves and has in use, what a trim and
 * the reserve give back to the device; and that no call leaves its lock held (another thread reads the books after
 * each one, bounded).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class MemoryAccountingTest {
    private static final long PAGE = 64 * 1024;
    private static final long MAX_POOLED = 16 * 1024;
    private final CountingDeviceMemory device = new CountingDeviceMemory();
    private final MemoryManager memory = new MemoryManager("fake", device, new PoolConfig(PAGE, MAX_POOLED, 256));

    /** Reads the books from another thread: fails if the last call left the manager's lock held. */
    private void readableFromAnotherThread(String after) throws Exception {
        assertThat(CompletableFuture.supplyAsync(memory::exactFitFreeBytes).get(5, TimeUnit.SECONDS))
                .as("the books after %s, read from another thread", after)
                .isGreaterThanOrEqualTo(0);
    }

    @Test
    void a_small_buffer_takes_its_power_of_two_class_from_a_page_and_a_large_one_an_exact_fit() throws Exception {
        assertThat(memory.align(1)).isEqualTo(256);
        assertThat(memory.align(257)).isEqualTo(512);

        PoolSlice small = memory.allocateDynamic(3000); // class 4096 of a 64 KiB page
        readableFromAnotherThread("a small allocation");
        PoolSlice large = memory.allocateDynamic(20_000); // exact fit: 20,224 bytes
        readableFromAnotherThread("a large allocation");

        assertThat(small.storage().length()).isEqualTo(4096);
        assertThat(large.storage().length()).isEqualTo(20_224);
        MemoryStats held = memory.stats(0);
        readableFromAnotherThread("stats");
        assertThat(held.inUseBytes()).isEqualTo(4096 + 20_224);
        assertThat(held.reservedBytes()).isEqualTo(PAGE + 20_224);
        assertThat(device.liveBytes()).isEqualTo(PAGE + 20_224);
        assertThat(memory.exactFit(20_224)).isTrue();
        assertThat(memory.exactFit(4096)).isFalse();
        assertThat(memory.exactFitFreeBytes()).isZero();

        memory.release(small);
        readableFromAnotherThread("a release");
        memory.release(large);
        MemoryStats freed = memory.stats(0);
        assertThat(freed.inUseBytes()).isZero();
        assertThat(freed.reservedBytes()).isEqualTo(PAGE + 20_224);
        assertThat(memory.exactFitFreeBytes()).isEqualTo(20_224);

        assertThat(memory.trim()).as("bytes a trim returns").isEqualTo(PAGE + 20_224);
        readableFromAnotherThread("a trim");
        assertThat(device.liveBytes()).isZero();
        assertThat(memory.stats(0).reservedBytes()).isZero();
        assertThat(memory.trim()).as("nothing left to trim").isZero();
    }

    @Test
    void a_slot_of_a_page_is_reused_and_a_page_is_trimmed_only_once_all_its_slots_are_free() {
        PoolSlice a = memory.allocateDynamic(1024);
        PoolSlice b = memory.allocateDynamic(1000); // the same class, the same page
        assertThat(device.allocations()).isEqualTo(1);
        memory.release(a);
        assertThat(memory.trim()).as("b still uses the page").isZero();
        PoolSlice c = memory.allocateDynamic(900);
        assertThat(c.storage()).as("a's slot again").isEqualTo(a.storage());
        memory.release(b);
        memory.release(c);
        assertThat(memory.trim()).isEqualTo(PAGE);
        assertThat(device.liveBytes()).isZero();
    }

    @Test
    void beyond_the_reserve_released_exact_fits_go_back_to_the_device_at_once() throws Exception {
        MemoryManager lean = new MemoryManager("fake", device, new PoolConfig(PAGE, MAX_POOLED, 256, 3 * 20_224, true));
        PoolSlice[] held = new PoolSlice[5];
        for (int i = 0; i < held.length; i++) {
            held[i] = lean.allocateDynamic(20_000);
        }
        assertThat(lean.reserveBytes()).isEqualTo(3 * 20_224);
        for (PoolSlice slice : held) {
            lean.release(slice);
        }
        assertThat(CompletableFuture.supplyAsync(lean::exactFitFreeBytes).get(5, TimeUnit.SECONDS))
                .as("what stays reserved, read from another thread")
                .isEqualTo(3 * 20_224);
        assertThat(lean.stats(0).reservedBytes()).isEqualTo(3 * 20_224);
        assertThat(device.liveBytes()).isEqualTo(3 * 20_224);
        lean.close();
        assertThat(device.liveBytes()).isZero();
    }

    @Test
    void a_window_from_open_to_unpin_leaves_the_lock_free_after_every_step_and_the_books_exact() throws Exception {
        CaptureMemorySession window = memory.openSession(1, true);
        readableFromAnotherThread("openSession");
        window.ensureFree(4096, 2); // two free 4 KiB slices, made before the recorded run
        readableFromAnotherThread("ensureFree");
        assertThat(memory.persistentSliceCount()).isEqualTo(2);
        readableFromAnotherThread("persistentSliceCount");
        assertThat(memory.stats(0).persistentFreeBytes()).isEqualTo(2 * 4096);
        window.endPass();
        readableFromAnotherThread("endPass");
        window.endPriming();
        readableFromAnotherThread("endPriming");
        PoolSlice recorded = window.allocate(4096);
        readableFromAnotherThread("an allocation in the window");
        assertThat(memory.persistentSliceCount())
                .as("served from what ensureFree made")
                .isEqualTo(2);
        memory.release(recorded);
        try (MemoryManager.FreeHold hold = memory.holdFrees()) {
            readableFromAnotherThread("holdFrees");
            assertThat(window.pinTo(3)).isEqualTo(4096);
            readableFromAnotherThread("pinTo");
        }
        readableFromAnotherThread("the hold's close");
        assertThat(memory.stats(0).pinnedPerGraph()).containsEntry(3L, 4096L);
        assertThat(recorded.pins()).isEqualTo(1);
        memory.unpin(3);
        readableFromAnotherThread("unpin");
        assertThat(recorded.pins()).isZero();
        assertThat(memory.stats(0).pinnedBytes()).isZero();
        assertThat(memory.trim()).isEqualTo(2 * 4096);
        memory.close();
        readableFromAnotherThread("close");
        assertThat(device.liveBytes()).isZero();
    }

    @Test
    void after_close_every_allocation_and_window_is_refused() {
        memory.close();

        assertThatThrownBy(() -> memory.allocateDynamic(1024)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> memory.allocateDynamic(1 << 20)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> memory.openSession(1, true)).isInstanceOf(IllegalStateException.class);
        assertThat(memory.trim()).isZero();
    }

    @Test
    void a_slice_describes_its_pool_size_offset_and_state() {
        PoolSlice slice = memory.allocateDynamic(1000);
        assertThat(slice.toString()).isEqualTo("dynamic slice of 1024 B at +0 in-use");
        assertThat(slice.persistent()).isFalse();
        memory.release(slice);
        assertThat(slice.toString()).isEqualTo("dynamic slice of 1024 B at +0");
        CaptureMemorySession window = memory.openSession(1, true);
        window.endPriming(); // the recorded run: what it takes is pinned to the graph
        PoolSlice persistent = window.allocate(4096);
        assertThat(persistent.persistent()).isTrue();
        memory.release(persistent);
        window.pinTo(1);
        assertThat(persistent.toString()).isEqualTo("persistent slice of 4096 B at +0 pins=1");
        assertThat(window.streamId()).isEqualTo(1);
    }

    @Test
    void a_hold_count_starts_at_one_and_cannot_be_taken_again_once_the_last_hold_went() {
        HoldCount count = new HoldCount();
        assertThat(count.count()).isEqualTo(1);
        assertThat(count.held()).isTrue();
        assertThat(count.retain()).isTrue();
        assertThat(count.count()).isEqualTo(2);
        assertThat(count.release("b")).isFalse();
        assertThat(count.release("b")).as("the last hold").isTrue();
        assertThat(count.held()).isFalse();
        assertThat(count.retain()).as("gone for good").isFalse();
        assertThat(count.count()).isZero();
        assertThatThrownBy(() -> count.release("b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("b");
    }

    @Test
    void a_pool_config_takes_its_limits_exactly_and_refuses_one_past_them() {
        assertThatCode(() -> new PoolConfig(256, 256, 256, 0, true)).doesNotThrowAnyException();
        assertThatThrownBy(() -> new PoolConfig(128, 128, 256, 0, true)).hasMessageContaining("pageBytes");
        assertThatThrownBy(() -> new PoolConfig(256, 257, 256, 0, true)).hasMessageContaining("maxPooledBytes");
        assertThatThrownBy(() -> new PoolConfig(256, 256, 0, 0, true)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> new PoolConfig(256, 256, 256, -1, true)).hasMessageContaining("reserveBytes");
        assertThatCode(() -> new PoolConfig(1, 1, 1, 0, true)).doesNotThrowAnyException();
    }
}
