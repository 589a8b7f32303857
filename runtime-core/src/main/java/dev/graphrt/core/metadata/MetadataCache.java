package dev.graphrt.core.metadata;

import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.spi.DeviceSlice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One stream's cache of info buffers, keyed by exact content: identical info words are uploaded once.
 *
 * <p>NORMAL mode caches blocks up to {@code maxEntryBytes}, at most {@code capacity} of them, evicting the
 * least recently used entry that no graph pins (capacity 0 disables caching: every launch gets a fresh
 * one-use buffer). CAPTURE mode caches any size, evicts nothing, and pins every entry a launch touches,
 * hit or insert; {@link #commit} hands those pins to the new graph, {@link #discard} drops them, and
 * {@link #release} drops a graph's pins and frees the capture-created entries that no graph holds any
 * more (a normal entry a capture merely hit returns to the LRU order). Pins are counted,
 * so two graphs may share an entry. Not thread-safe: the owning stream serialises calls.
 */
public final class MetadataCache {

    /** Where entries live: the stream's state-aware allocator, a synchronous upload, a fenced free. */
    public interface Storage {
        PoolSlice allocate(long bytes);

        /** Uploads the first {@code count} of {@code words} into {@code slice}. */
        void upload(PoolSlice slice, int[] words, int count);

        void deferFree(PoolSlice slice);

        /** Returns a slice no work ever used (its upload failed) at once. */
        void freeUnused(PoolSlice slice);
    }

    private static final int[] NO_WORDS = new int[0];

    private static final class Key {
        int[] words;
        int length;
        int hash;

        /** A key over the first {@code length} of {@code words} (a probe may use a reused, longer array). */
        Key(int[] words, int length) {
            point(words, length);
        }

        /** Points the cache's one probe at other words: a lookup allocates no key. An entry's key never moves. */
        Key point(int[] words, int length) {
            this.words = words;
            this.length = length;
            int h = 1;
            for (int i = 0; i < length; i++) {
                h = 31 * h + words[i];
            }
            this.hash = h;
            return this;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key k
                    && k.hash == hash
                    && k.length == length
                    && Arrays.equals(k.words, 0, length, words, 0, length);
        }
    }

    private static final class Entry {
        final Key key;
        final PoolSlice slice;
        final DeviceSlice view;
        final boolean createdInCapture;
        int graphPins;

        Entry(Key key, PoolSlice slice, boolean createdInCapture) {
            this.key = key;
            this.slice = slice;
            this.createdInCapture = createdInCapture;
            this.view = slice.storage().prefix(key.length * 4L);
        }
    }

    private final int capacity;
    private final int maxEntryBytes;
    private final Storage storage;
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    /** The one key every lookup probes with (the cache is its stream's alone): a hit allocates nothing. */
    private final Key probe = new Key(new int[0], 0);
    /**
     * The entry the last lookup returned, while it stays cached: a launch that repeats the words before it (a loop
     * over one kernel's arguments) is a hit without hashing them or reordering the map, where it is already the most
     * recently used entry. Forgotten whenever an entry leaves, or the map is read in another order.
     */
    private @Nullable Entry recent;

    private final Set<Entry> windowPins = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Map<Long, List<Entry>> graphPins = new HashMap<>();
    private CacheMode mode = CacheMode.NORMAL;
    private long hits;
    private long misses;

    public MetadataCache(int capacity, int maxEntryBytes, Storage storage) {
        if (capacity < 0 || maxEntryBytes < 4) {
            throw new IllegalArgumentException(
                    "capacity must be >= 0 and maxEntryBytes >= 4, were " + capacity + ", " + maxEntryBytes);
        }
        this.capacity = capacity;
        this.maxEntryBytes = maxEntryBytes;
        this.storage = storage;
    }

    /** The device slice holding {@code words}, uploading them if no entry has them. Never modifies the array. */
    public DeviceSlice lookup(int[] words) {
        return lookup(words, words.length);
    }

    /**
     * The device slice holding the first {@code count} of {@code words} (a caller may pass an array it reuses),
     * uploading them if no entry has them; a new entry keeps a copy. Never modifies the array.
     */
    public DeviceSlice lookup(int[] words, int count) {
        Entry last = recent;
        if (last != null && last.key.length == count && Arrays.equals(last.key.words, 0, count, words, 0, count)) {
            hits++;
            if (mode == CacheMode.CAPTURE) {
                windowPins.add(last);
            }
            return last.view;
        }
        Entry entry = entries.get(probe.point(words, count));
        probe.words = NO_WORDS; // the caller's array is not kept
        if (entry != null) {
            hits++;
            if (mode == CacheMode.CAPTURE) {
                windowPins.add(entry);
            }
            recent = entry;
            return entry.view;
        }
        misses++;
        long bytes = count * 4L;
        if (mode == CacheMode.NORMAL && (capacity == 0 || bytes > maxEntryBytes)) {
            PoolSlice oneUse = allocateAndUpload(bytes, words, count);
            storage.deferFree(oneUse);
            return oneUse.storage().prefix(bytes);
        }
        if (mode == CacheMode.NORMAL) {
            evictDownTo(capacity - 1);
        }
        Key key = new Key(Arrays.copyOf(words, count), count);
        PoolSlice slice = allocateAndUpload(bytes, key.words, count);
        entry = new Entry(key, slice, mode == CacheMode.CAPTURE);
        entries.put(key, entry);
        if (mode == CacheMode.CAPTURE) {
            windowPins.add(entry);
        }
        recent = entry;
        return entry.view;
    }

    /** A slice holding {@code words}; a failed upload gives the slice back before the failure propagates. */
    private PoolSlice allocateAndUpload(long bytes, int[] words, int count) {
        PoolSlice slice = storage.allocate(bytes);
        try {
            storage.upload(slice, words, count);
        } catch (RuntimeException | Error failure) {
            storage.freeUnused(slice);
            throw failure;
        }
        return slice;
    }

    private void evictDownTo(int limit) {
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext() && entries.size() > limit; ) {
            Entry victim = it.next();
            if (victim.graphPins == 0 && !windowPins.contains(victim)) {
                forget(victim);
                it.remove();
                storage.deferFree(victim.slice);
            }
        }
    }

    /** Enters CAPTURE mode (prepare). */
    public void enterCaptureMode() {
        mode = CacheMode.CAPTURE;
    }

    /** Gives the window's pins to {@code graphId} and returns to NORMAL mode. */
    public void commit(long graphId) {
        List<Entry> pinned = new ArrayList<>(windowPins);
        for (Entry entry : pinned) {
            entry.graphPins++;
        }
        graphPins.put(graphId, pinned);
        windowPins.clear();
        mode = CacheMode.NORMAL;
    }

    /**
     * Drops the window's pins and returns to NORMAL mode (cancel, abort, a rejected update): entries the window
     * created that no graph holds are freed (behind the stream's work), since nothing will ever release them
     * otherwise; entries that existed before the window stay cached.
     */
    public void discard() {
        for (Entry entry : windowPins) {
            if (entry.createdInCapture && entry.graphPins == 0) {
                forget(entry);
                entries.remove(entry.key);
                storage.deferFree(entry.slice);
            }
        }
        windowPins.clear();
        mode = CacheMode.NORMAL;
    }

    /**
     * Drops {@code graphId}'s pins and frees every entry that a capture created and no graph holds any more.
     * Entries that were already in the normal cache before a capture hit them stay cached (subject to LRU).
     */
    public void release(long graphId) {
        List<Entry> pinned = graphPins.remove(graphId);
        if (pinned == null) {
            return;
        }
        for (Entry entry : pinned) {
            if (--entry.graphPins == 0 && entry.createdInCapture && !windowPins.contains(entry)) {
                forget(entry);
                entries.remove(entry.key);
                storage.deferFree(entry.slice);
            }
        }
    }

    /** The last lookup's entry is no longer the one to repeat when it leaves the map. */
    private void forget(Entry leaving) {
        if (recent == leaving) {
            recent = null;
        }
    }

    /** Frees every unpinned entry (stream close, trim). */
    public void clearUnpinned() {
        evictDownTo(0);
    }

    public CacheMode mode() {
        return mode;
    }

    public int size() {
        return entries.size();
    }

    public boolean contains(int[] words) {
        return entries.containsKey(new Key(words, words.length));
    }

    public int pinCount(int[] words) {
        recent = null; // get moves the entry in the LRU order: the next lookup must go through the map too
        Entry entry = entries.get(new Key(words, words.length));
        return entry == null ? 0 : entry.graphPins;
    }

    public boolean isWindowPinned(int[] words) {
        recent = null; // as in pinCount
        Entry entry = entries.get(new Key(words, words.length));
        return entry != null && windowPins.contains(entry);
    }

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }
}
