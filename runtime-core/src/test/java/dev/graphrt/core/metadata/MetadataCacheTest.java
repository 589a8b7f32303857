package dev.graphrt.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.core.memory.CountingDeviceMemory;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolConfig;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.spi.DeviceSlice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataCacheTest {
    private final CountingDeviceMemory device = new CountingDeviceMemory();
    private final MemoryManager memory = new MemoryManager("fake", device, new PoolConfig(1 << 16, 1 << 12, 256));
    private final List<PoolSlice> freed = new ArrayList<>();
    private int uploads;

    private MetadataCache cache(int capacity, int maxEntryBytes) {
        return new MetadataCache(capacity, maxEntryBytes, new MetadataCache.Storage() {
            @Override
            public PoolSlice allocate(long bytes) {
                return memory.allocateDynamic(bytes);
            }

            @Override
            public void upload(PoolSlice slice, int[] words, int count) {
                if (failUploads) {
                    throw new IllegalStateException("upload failed");
                }
                uploads++;
            }

            @Override
            public void deferFree(PoolSlice slice) {
                freed.add(slice);
            }

            @Override
            public void freeUnused(PoolSlice slice) {
                memory.release(slice);
            }
        });
    }

    private boolean failUploads;

    @Test
    void a_failing_upload_gives_its_slot_back_and_caches_nothing() {
        MetadataCache normal = cache(4, 64);
        MetadataCache oneUse = cache(0, 64);
        failUploads = true;
        long inUseBefore = memory.stats(0).inUseBytes();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> normal.lookup(words(1, 2, 3)))
                .hasMessage("upload failed");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> oneUse.lookup(words(4, 5)))
                .hasMessage("upload failed");

        assertThat(memory.stats(0).inUseBytes()).as("no slot leaked").isEqualTo(inUseBefore);
        assertThat(normal.contains(words(1, 2, 3))).isFalse();
        failUploads = false;
        assertThat(normal.lookup(words(1, 2, 3))).isNotNull();
    }

    private static int[] words(int... w) {
        return w;
    }

    @Test
    void identical_words_are_uploaded_once_and_share_one_slice() {
        MetadataCache cache = cache(4, 64);
        DeviceSlice first = cache.lookup(words(1, 2, 3));
        DeviceSlice again = cache.lookup(words(1, 2, 3));
        assertThat(again).isSameAs(first);
        assertThat(first.length()).isEqualTo(12);
        assertThat(uploads).isEqualTo(1);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void normal_mode_gates_on_size_and_evicts_the_least_recently_used() {
        MetadataCache cache = cache(2, 8);
        cache.lookup(words(1, 2, 3));
        assertThat(cache.size()).as("12 bytes exceed the 8-byte gate").isZero();
        assertThat(freed).as("the one-use buffer is freed behind the launch").hasSize(1);
        cache.lookup(words(1));
        cache.lookup(words(2));
        cache.lookup(words(1));
        cache.lookup(words(3));
        assertThat(cache.contains(words(2)))
                .as("least recently used goes first")
                .isFalse();
        assertThat(cache.contains(words(1))).isTrue();
        assertThat(cache.contains(words(3))).isTrue();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void capture_mode_caches_any_size_and_is_unbounded() {
        MetadataCache cache = cache(2, 8);
        cache.enterCaptureMode();
        for (int i = 0; i < 10; i++) {
            cache.lookup(words(i, i, i, i, i));
        }
        assertThat(cache.size()).isEqualTo(10);
        assertThat(freed).isEmpty();
        cache.commit(1);
        assertThat(cache.mode()).isEqualTo(CacheMode.NORMAL);
        assertThat(cache.pinCount(words(3, 3, 3, 3, 3))).isEqualTo(1);
    }

    @Test
    void a_pinned_entry_survives_eviction_until_its_graph_is_released() {
        MetadataCache cache = cache(1, 64);
        cache.enterCaptureMode();
        cache.lookup(words(42));
        cache.commit(7);
        cache.lookup(words(1));
        cache.lookup(words(2));
        assertThat(cache.contains(words(42))).isTrue();
        cache.release(7);
        assertThat(cache.contains(words(42)))
                .as("released entries no graph holds are freed")
                .isFalse();
        assertThat(freed).extracting(PoolSlice::capacity).isNotEmpty();
    }

    @Test
    void a_capture_hit_on_a_normal_entry_pins_it() {
        MetadataCache cache = cache(4, 64);
        cache.lookup(words(5, 6));
        cache.enterCaptureMode();
        cache.lookup(words(5, 6));
        assertThat(cache.isWindowPinned(words(5, 6))).isTrue();
        cache.commit(1);
        assertThat(cache.pinCount(words(5, 6))).isEqualTo(1);
        assertThat(uploads).isEqualTo(1);
        cache.release(1);
        assertThat(cache.contains(words(5, 6)))
                .as("a normal entry stays cached after its graph goes")
                .isTrue();
        assertThat(cache.pinCount(words(5, 6))).isZero();
    }

    @Test
    void pins_are_counted_across_two_graphs() {
        MetadataCache cache = cache(4, 64);
        cache.enterCaptureMode();
        cache.lookup(words(9));
        cache.commit(1);
        cache.enterCaptureMode();
        cache.lookup(words(9));
        cache.commit(2);
        assertThat(cache.pinCount(words(9))).isEqualTo(2);
        cache.release(1);
        assertThat(cache.contains(words(9))).isTrue();
        assertThat(cache.pinCount(words(9))).isEqualTo(1);
        cache.release(2);
        assertThat(cache.contains(words(9))).isFalse();
    }

    @Test
    void discard_frees_the_entries_the_window_created_and_keeps_those_that_were_cached_before() {
        MetadataCache cache = cache(4, 64);
        cache.lookup(words(2, 7));
        cache.enterCaptureMode();
        cache.lookup(words(3, 1, 4));
        cache.lookup(words(2, 7));
        cache.discard();
        assertThat(cache.contains(words(3, 1, 4)))
                .as("created by the cancelled window: nobody could free it later")
                .isFalse();
        assertThat(freed).as("its slice leaves behind the stream's work").hasSize(1);
        assertThat(cache.contains(words(2, 7))).as("cached before the window").isTrue();
        assertThat(cache.isWindowPinned(words(2, 7))).isFalse();
        assertThat(cache.pinCount(words(2, 7))).isZero();
        assertThat(cache.mode()).isEqualTo(CacheMode.NORMAL);
    }

    @Test
    void discard_keeps_an_entry_a_live_graph_still_pins() {
        MetadataCache cache = cache(4, 64);
        cache.enterCaptureMode();
        cache.lookup(words(5, 5));
        cache.commit(1);
        cache.enterCaptureMode();
        cache.lookup(words(5, 5));
        cache.discard();
        assertThat(cache.contains(words(5, 5))).isTrue();
        assertThat(cache.pinCount(words(5, 5))).isEqualTo(1);
        assertThat(freed).isEmpty();
    }

    @Test
    void zero_capacity_disables_caching() {
        MetadataCache cache = cache(0, 64);
        cache.lookup(words(1));
        cache.lookup(words(1));
        assertThat(cache.size()).isZero();
        assertThat(uploads).isEqualTo(2);
        assertThat(freed).hasSize(2);
    }

    @Test
    void the_caller_may_reuse_its_array_after_a_lookup() {
        MetadataCache cache = cache(4, 64);
        int[] scratch = {1, 2};
        cache.lookup(scratch);
        scratch[0] = 99;
        assertThat(cache.contains(words(1, 2))).isTrue();
        assertThat(cache.contains(words(99, 2))).isFalse();
    }

    @Test
    void repeating_the_last_words_hits_until_their_entry_is_evicted_then_uploads_them_anew() {
        MetadataCache cache = cache(4, 64);
        DeviceSlice first = cache.lookup(words(7, 8));
        assertThat(cache.lookup(words(7, 8))).as("the repeat").isSameAs(first);
        cache.clearUnpinned();
        assertThat(freed).as("the entry was evicted").hasSize(1);

        DeviceSlice again = cache.lookup(words(7, 8));

        assertThat(uploads)
                .as("the evicted words uploaded again, not served from a freed slice")
                .isEqualTo(2);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(2);
        assertThat(cache.contains(words(7, 8))).isTrue();
        assertThat(again.length()).isEqualTo(8);
    }

    @Test
    void a_repeat_inside_a_capture_pins_its_entry_to_the_window_and_the_graph() {
        MetadataCache cache = cache(4, 64);
        cache.lookup(words(3, 1, 4)); // cached before the capture, and the last lookup
        cache.enterCaptureMode();

        cache.lookup(words(3, 1, 4));

        assertThat(cache.isWindowPinned(words(3, 1, 4))).isTrue();
        cache.commit(42);
        assertThat(cache.pinCount(words(3, 1, 4))).isEqualTo(1);
        cache.clearUnpinned();
        assertThat(cache.contains(words(3, 1, 4)))
                .as("pinned by graph 42: not evicted")
                .isTrue();
    }

    @Test
    void a_shorter_prefix_of_the_last_words_is_another_key() {
        MetadataCache cache = cache(4, 64);
        int[] reused = {5, 6, 7};
        DeviceSlice three = cache.lookup(reused, 3);

        DeviceSlice two = cache.lookup(reused, 2);

        assertThat(two).isNotSameAs(three);
        assertThat(two.length()).isEqualTo(8);
        assertThat(cache.misses()).isEqualTo(2);
    }

    @Test
    void words_a_discarded_capture_created_are_uploaded_anew_not_served_from_their_freed_slice() {
        MetadataCache cache = cache(4, 64);
        cache.enterCaptureMode();
        cache.lookup(words(9, 9, 1)); // created by the window, and the last lookup
        cache.discard();
        assertThat(freed).as("the window's entry freed").hasSize(1);

        cache.lookup(words(9, 9, 1));

        assertThat(uploads).isEqualTo(2);
        assertThat(cache.misses()).isEqualTo(2);
    }

    @Test
    void words_a_released_graph_held_alone_are_uploaded_anew_not_served_from_their_freed_slice() {
        MetadataCache cache = cache(4, 64);
        cache.enterCaptureMode();
        cache.lookup(words(2, 7, 1, 8));
        cache.commit(5);
        cache.release(5);
        assertThat(freed).as("graph 5's entry freed").hasSize(1);

        cache.lookup(words(2, 7, 1, 8));

        assertThat(uploads).isEqualTo(2);
        assertThat(cache.misses()).isEqualTo(2);
    }

    @Test
    void a_hit_through_the_map_counts_and_pins_like_a_repeat() {
        MetadataCache cache = cache(4, 64);
        cache.lookup(words(1, 1));
        cache.lookup(words(2, 2)); // the last lookup is now another entry: the next hit goes through the map
        cache.enterCaptureMode();

        cache.lookup(words(1, 1));

        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.isWindowPinned(words(1, 1))).isTrue();
        assertThat(cache.isWindowPinned(words(2, 2))).isFalse();
    }
}
