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
import org.jspecify.annotations.Nullable;

/**
 * Slices that each own a whole device allocation of one exact (aligned) size, reused only for that size.
 * The persistent pool is one; the dynamic pool keeps one for sizes above its largest class.
 */
final class ExactFitPool {
    private final DeviceMemory device;
    private final Allocator allocator;
    private final boolean persistent;
    private final Map<Long, ArrayDeque<PoolSlice>> bySize = new HashMap<>();
    private final List<PoolSlice> all = new ArrayList<>();
    private long reserved;

    ExactFitPool(DeviceMemory device, Allocator allocator, boolean persistent) {
        this.device = device;
        this.allocator = allocator;
        this.persistent = persistent;
    }

    /** A free slice of exactly {@code size} bytes that {@code session} may take, or null. */
    @Nullable
    PoolSlice take(long size, @Nullable CaptureMemorySession session) {
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
        DeviceAllocation allocation = allocator.allocate(size);
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
    long trim(List<RuntimeException> failures) {
        return trimDownTo(0, failures);
    }

    /**
     * Returns trimmable slices to the device, oldest first, until at most {@code keepBytes} of them remain. A
     * free that fails keeps its slice here (reserved, and tried again at the next trim or at close) and is
     * added to {@code failures}. Returns the bytes freed.
     */
    long trimDownTo(long keepBytes, List<RuntimeException> failures) {
        long trimmable = trimmableBytes();
        long freed = 0;
        for (Iterator<PoolSlice> it = all.iterator(); it.hasNext() && trimmable > keepBytes; ) {
            PoolSlice slice = it.next();
            if (slice.trimmable()) {
                trimmable -= slice.capacity();
                try {
                    device.free((DeviceAllocation) slice.page());
                } catch (RuntimeException failure) {
                    failures.add(failure);
                    continue;
                }
                it.remove();
                Objects.requireNonNull(bySize.get(slice.sizeKey()), "a pooled slice's size has its list")
                        .remove(slice);
                freed += slice.capacity();
            }
        }
        reserved -= freed;
        return freed;
    }

    long trimmableBytes() {
        long bytes = 0;
        for (PoolSlice slice : all) {
            if (slice.trimmable()) {
                bytes += slice.capacity();
            }
        }
        return bytes;
    }

    /** Frees everything, in use or not: only when the runtime closes. Each free is tried; failures are added. */
    void freeAll(List<RuntimeException> failures) {
        for (PoolSlice slice : all) {
            try {
                device.free((DeviceAllocation) slice.page());
            } catch (RuntimeException failure) {
                failures.add(failure);
            }
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
