package dev.graphrt.core.memory;

import dev.graphrt.api.MemoryStats;
import dev.graphrt.core.events.PoolGrowthEvent;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * All memory policy of one runtime over the backend's raw {@link DeviceMemory}: the dynamic pool (size
 * classes over pages, exact-fit above the largest class) for ordinary allocations, the persistent pool
 * (exact-fit) for capture windows, pins per graph, trimming and accounting. Thread-safe; every slice
 * state change happens under one lock.
 */
public final class MemoryManager {
    private final ReentrantLock lock = new ReentrantLock();
    private final PoolConfig config;
    private final SizeClassPool small;
    private final ExactFitPool large;
    private final ExactFitPool persistent;
    private final Map<Long, List<PoolSlice>> pinsByGraph = new HashMap<>();
    private final Map<Long, Long> pinnedBytesByGraph = new HashMap<>();
    private final String backend;

    public MemoryManager(String backend, DeviceMemory device, PoolConfig config) {
        this.backend = backend;
        this.config = config;
        this.small = new SizeClassPool(device, config);
        this.large = new ExactFitPool(device, false);
        this.persistent = new ExactFitPool(device, true);
    }

    public long align(long bytes) {
        return config.align(bytes);
    }

    /** An allocation outside every capture window. */
    public PoolSlice allocateDynamic(long bytes) {
        boolean[] grew = new boolean[1];
        PoolSlice slice;
        lock.lock();
        try {
            if (bytes <= config.maxPooledBytes()) {
                slice = small.take(bytes, grew);
            } else {
                long size = config.align(bytes);
                slice = large.take(size, null);
                if (slice == null) {
                    slice = large.grow(size);
                    grew[0] = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (grew[0]) {
            PoolGrowthEvent.emit(backend, "dynamic", bytes, slice.capacity());
        }
        return slice;
    }

    /** Opens the memory side of a capture window for a stream. */
    public CaptureMemorySession openSession(long streamId, boolean mayGrowWhileRecording) {
        return new CaptureMemorySession(this, streamId, mayGrowWhileRecording);
    }

    PoolSlice allocateInWindow(CaptureMemorySession session, long bytes) {
        long size = config.align(bytes);
        boolean[] grew = new boolean[1];
        PoolSlice slice;
        lock.lock();
        try {
            slice = session.serve(size, persistent, grew);
        } finally {
            lock.unlock();
        }
        if (grew[0]) {
            PoolGrowthEvent.emit(backend, "persistent", bytes, size);
        }
        return slice;
    }

    void ensureFree(CaptureMemorySession session, long size, int count) {
        long aligned = config.align(size);
        int grown = 0;
        lock.lock();
        try {
            for (int missing = count - persistent.takeableCount(aligned, session); missing > 0; missing--) {
                persistent.grow(aligned).inUse = false;
                grown++;
            }
        } finally {
            lock.unlock();
        }
        if (grown > 0) {
            PoolGrowthEvent.emit(backend, "persistent headroom", (long) grown * aligned, (long) grown * aligned);
        }
    }

    /** The owner of a slice (a closed buffer, an evicted cache entry) is done with it; a fence showed it. */
    public void release(PoolSlice slice) {
        lock.lock();
        try {
            if (!slice.inUse) {
                throw new IllegalStateException("released twice: " + slice);
            }
            if (!(slice.page() instanceof DeviceAllocation)) {
                small.release(slice);
            } else {
                slice.inUse = false;
            }
        } finally {
            lock.unlock();
        }
    }

    long pinWindow(CaptureMemorySession session, long graphId) {
        lock.lock();
        try {
            List<PoolSlice> pinned = new ArrayList<>(session.touched());
            long bytes = 0;
            for (PoolSlice slice : pinned) {
                slice.pins++;
                bytes += slice.capacity();
            }
            pinsByGraph.put(graphId, pinned);
            pinnedBytesByGraph.put(graphId, bytes);
            session.closeWithoutPins();
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Releases a graph's pins (after its replays finished); its slices become free unless still in use. */
    public void unpin(long graphId) {
        lock.lock();
        try {
            List<PoolSlice> pinned = pinsByGraph.remove(graphId);
            pinnedBytesByGraph.remove(graphId);
            if (pinned != null) {
                for (PoolSlice slice : pinned) {
                    slice.pins--;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Returns every free slice and page no window or graph holds to the device; returns the bytes freed. */
    public long trim() {
        lock.lock();
        try {
            return small.trim() + large.trim() + persistent.trim();
        } finally {
            lock.unlock();
        }
    }

    public MemoryStats stats() {
        lock.lock();
        try {
            Map<PoolSlice, Boolean> distinct = new IdentityHashMap<>();
            for (List<PoolSlice> slices : pinsByGraph.values()) {
                for (PoolSlice slice : slices) {
                    distinct.put(slice, Boolean.TRUE);
                }
            }
            long pinned = distinct.keySet().stream().mapToLong(PoolSlice::capacity).sum();
            return new MemoryStats(small.reserved() + large.reserved() + persistent.reserved(),
                    small.inUseBytes() + large.inUseBytes() + persistent.inUseBytes(),
                    persistent.freeBytes(), pinned, pinnedBytesByGraph);
        } finally {
            lock.unlock();
        }
    }

    /** Number of slices the persistent pool holds (free or not): what priming grew it to. */
    public int persistentSliceCount() {
        lock.lock();
        try {
            return persistent.sliceCount();
        } finally {
            lock.unlock();
        }
    }

    void withLock(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }


    /** Frees every allocation: the runtime is closing and no work is outstanding. */
    public void close() {
        lock.lock();
        try {
            small.freeAll();
            large.freeAll();
            persistent.freeAll();
            pinsByGraph.clear();
            pinnedBytesByGraph.clear();
        } finally {
            lock.unlock();
        }
    }
}
