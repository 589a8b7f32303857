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

/**
 * Slices that each own a whole device allocation of one exact (aligned) size, reused only for that size.
 * The persistent pool is one; the dynamic pool keeps one for sizes above its largest class.
 */
final class ExactFitPool {
    private final DeviceMemory device;
    private final boolean persistent;
    private final Map<Long, ArrayDeque<PoolSlice>> bySize = new HashMap<>();
    private final List<PoolSlice> all = new ArrayList<>();
    private long reserved;

    ExactFitPool(DeviceMemory device, boolean persistent) {
        this.device = device;
        this.persistent = persistent;
    }

    /** A free slice of exactly {@code size} bytes that {@code session} may take, or null. */
    PoolSlice take(long size, CaptureMemorySession session) {
        ArrayDeque<PoolSlice> candidates = bySize.get(size);
        if (candidates == null) {
            return null;
        }
        for (PoolSlice slice : candidates) {
            if (slice.takeableBy(session)) {
                slice.inUse = true;
                return slice;
            }
        }
        return null;
    }

    /** Reserves a new allocation of {@code size} bytes from the device, handed out at once. */
    PoolSlice grow(long size) {
        DeviceAllocation allocation = device.allocate(size);
        PoolSlice slice = new PoolSlice(new DeviceSlice(allocation, 0, size), size, persistent, allocation);
        slice.inUse = true;
        bySize.computeIfAbsent(size, k -> new ArrayDeque<>()).add(slice);
        all.add(slice);
        reserved += size;
        return slice;
    }

    /** How many slices of {@code size} {@code session} could take now. */
    int takeableCount(long size, CaptureMemorySession session) {
        ArrayDeque<PoolSlice> candidates = bySize.get(size);
        if (candidates == null) {
            return 0;
        }
        int count = 0;
        for (PoolSlice slice : candidates) {
            if (slice.takeableBy(session)) {
                count++;
            }
        }
        return count;
    }

    /** Returns every trimmable slice's allocation to the device; returns the bytes freed. */
    long trim() {
        long freed = 0;
        for (Iterator<PoolSlice> it = all.iterator(); it.hasNext(); ) {
            PoolSlice slice = it.next();
            if (slice.trimmable()) {
                it.remove();
                bySize.get(slice.sizeKey()).remove(slice);
                device.free((DeviceAllocation) slice.page());
                freed += slice.capacity();
            }
        }
        reserved -= freed;
        return freed;
    }

    /** Frees everything, in use or not: only when the runtime closes. */
    void freeAll() {
        for (PoolSlice slice : all) {
            device.free((DeviceAllocation) slice.page());
        }
        all.clear();
        bySize.clear();
        reserved = 0;
    }

    long reserved() {
        return reserved;
    }

    long freeBytes() {
        long free = 0;
        for (PoolSlice slice : all) {
            if (!slice.inUse && !slice.primedHeld && slice.pins == 0) {
                free += slice.capacity();
            }
        }
        return free;
    }

    long inUseBytes() {
        long used = 0;
        for (PoolSlice slice : all) {
            if (slice.inUse || slice.pins > 0 || slice.primedHeld) {
                used += slice.capacity();
            }
        }
        return used;
    }

    int sliceCount() {
        return all.size();
    }
}
