package dev.graphrt.core.memory;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The dynamic pool's small sizes: power-of-two size classes (at least the alignment), each served from
 * pages of {@code pageBytes} cut into equal slots. Allocation and release are a deque pop and push.
 */
final class SizeClassPool {
    private static final class Page {
        final DeviceAllocation allocation;
        final List<PoolSlice> slots = new ArrayList<>();
        int used;

        Page(DeviceAllocation allocation) {
            this.allocation = allocation;
        }
    }

    private final DeviceMemory device;
    private final Allocator allocator;
    private final PoolConfig config;
    private final Map<Long, ArrayDeque<PoolSlice>> freeByClass = new HashMap<>();
    private final Map<Long, List<Page>> pagesByClass = new HashMap<>();
    private long reserved;
    private long inUse;

    SizeClassPool(DeviceMemory device, Allocator allocator, PoolConfig config) {
        this.device = device;
        this.allocator = allocator;
        this.config = config;
    }

    long sizeClass(long bytes) {
        long aligned = config.align(bytes);
        long cls = Long.highestOneBit(aligned);
        return cls == aligned ? cls : cls << 1;
    }

    /** Hands out a slot of the class of {@code bytes}; the boolean in {@code grew} reports a new page. */
    PoolSlice take(long bytes, boolean[] grew) {
        long cls = sizeClass(bytes);
        ArrayDeque<PoolSlice> free = freeByClass.computeIfAbsent(cls, k -> new ArrayDeque<>());
        PoolSlice slice = free.pollFirst();
        if (slice == null) {
            addPage(cls, free);
            grew[0] = true;
            slice = free.pollFirst();
        }
        slice.inUse = true;
        ((Page) slice.page()).used++;
        inUse += cls;
        return slice;
    }

    private void addPage(long cls, ArrayDeque<PoolSlice> free) {
        long pageSize = Math.max(config.pageBytes(), cls);
        DeviceAllocation allocation = allocator.allocate(pageSize);
        Page page = new Page(allocation);
        for (long off = 0; off + cls <= pageSize; off += cls) {
            PoolSlice slot = new PoolSlice(new DeviceSlice(allocation, off, cls), cls, false, page);
            page.slots.add(slot);
            free.addLast(slot);
        }
        pagesByClass.computeIfAbsent(cls, k -> new ArrayList<>()).add(page);
        reserved += pageSize;
    }

    void release(PoolSlice slice) {
        slice.inUse = false;
        ((Page) slice.page()).used--;
        inUse -= slice.sizeKey();
        Objects.requireNonNull(freeByClass.get(slice.sizeKey()), "a pooled slice's class has its free list")
                .addFirst(slice);
    }

    /** Frees every page with no slot in use; a page whose free fails stays (and is added to {@code failures}). */
    long trim(List<RuntimeException> failures) {
        long freed = 0;
        for (Map.Entry<Long, List<Page>> e : pagesByClass.entrySet()) {
            ArrayDeque<PoolSlice> free =
                    Objects.requireNonNull(freeByClass.get(e.getKey()), "a class with pages has its free list");
            for (Iterator<Page> it = e.getValue().iterator(); it.hasNext(); ) {
                Page page = it.next();
                if (page.used == 0) {
                    try {
                        device.free(page.allocation);
                    } catch (RuntimeException failure) {
                        failures.add(failure);
                        continue;
                    }
                    it.remove();
                    // One pass over the free slots: removeAll(page.slots) asked the page's list about every free
                    // slot, slots x free steps (an empty page of 256-byte slots took about a second to trim).
                    free.removeIf(slot -> slot.page() == page);
                    freed += page.allocation.byteSize();
                }
            }
        }
        reserved -= freed;
        return freed;
    }

    /** Frees every page, in use or not: only when the runtime closes. Each free is tried; failures are added. */
    void freeAll(List<RuntimeException> failures) {
        for (List<Page> pages : pagesByClass.values()) {
            for (Page page : pages) {
                try {
                    device.free(page.allocation);
                } catch (RuntimeException failure) {
                    failures.add(failure);
                }
            }
        }
        pagesByClass.clear();
        freeByClass.clear();
        reserved = 0;
        inUse = 0;
    }

    long reserved() {
        return reserved;
    }

    long inUseBytes() {
        return inUse;
    }
}
