package dev.graphrt.core.memory;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.DriverException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All memory policy of one runtime over the backend's raw {@link DeviceMemory}: the dynamic pool (size
 * classes over pages, exact-fit above the largest class) for ordinary allocations, the persistent pool
 * (exact-fit) for capture windows, pins per graph, the budget, trimming and accounting. Thread-safe; every
 * slice state change happens under one lock, and nothing here calls back into a stream.
 *
 * <p>Budget: the free exact-fit allocations the pools keep are bounded by {@link PoolConfig#reserveBytes()};
 * beyond it the oldest go back to the device. A device allocation that fails for lack of memory trims every
 * pool and retries once before {@link DeviceOutOfMemoryException}. On hardware-graph backends the device is
 * never asked to free while a capture window is open (the budget then waits for the window to close).
 * After {@link #close()} every call that would touch a pool is a quiet no-op.
 */
public final class MemoryManager {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryManager.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final PoolConfig config;
    private final DeviceMemory device;
    private final SizeClassPool small;
    private final ExactFitPool large;
    private final ExactFitPool persistent;
    private final Map<Long, List<PoolSlice>> pinsByGraph = new HashMap<>();
    private final Map<Long, Long> pinnedBytesByGraph = new HashMap<>();
    private final String backend;
    private final GrowthListener growth;
    private int openSessions;
    /** Holds of {@link #holdFrees()} not yet closed. */
    private int freeHolds;
    /** Bytes ever allocated from the device (under the lock): a growth reports what it added here. */
    private long fromDevice;

    private boolean closed;

    public MemoryManager(String backend, DeviceMemory device, PoolConfig config) {
        this(backend, device, config, (pool, requested, reserved) -> {});
    }

    /** With {@code growth} told of every pool growth, besides the JFR event. */
    public MemoryManager(String backend, DeviceMemory device, PoolConfig config, GrowthListener growth) {
        this.growth = growth;
        this.backend = backend;
        this.config = config;
        this.device = device;
        this.small = new SizeClassPool(device, this::allocateFromDevice, config);
        this.large = new ExactFitPool(device, this::allocateFromDevice, false);
        this.persistent = new ExactFitPool(device, this::allocateFromDevice, true);
    }

    /** Told when a pool reserves more from the device (outside the manager's lock). */
    @FunctionalInterface
    public interface GrowthListener {
        void grew(String pool, long requested, long reserved);
    }

    private void grew(String pool, long requested, long reserved) {
        PoolGrowthEvent.emit(backend, pool, requested, reserved);
        growth.grew(pool, requested, reserved);
    }

    public long align(long bytes) {
        return config.align(bytes);
    }

    /** Called under the lock by the pools: one retry after trimming when the device is full. */
    private DeviceAllocation allocateFromDevice(long bytes) {
        DeviceAllocation allocation = allocateOrTrimAndRetry(bytes);
        fromDevice += bytes;
        return allocation;
    }

    private DeviceAllocation allocateOrTrimAndRetry(long bytes) {
        try {
            return device.allocate(bytes);
        } catch (DeviceOutOfMemoryException full) {
            if (!mayFreeNow()) {
                throw full;
            }
            List<RuntimeException> failures = new ArrayList<>();
            long freed = small.trim(failures) + large.trim(failures) + persistent.trim(failures);
            failures.forEach(full::addSuppressed);
            if (freed == 0) {
                throw full;
            }
            LOG.debug(
                    "{}: device full for {} B; trimmed {} B of free pool memory and retrying once",
                    backend,
                    bytes,
                    freed);
            try {
                return device.allocate(bytes);
            } catch (DeviceOutOfMemoryException stillFull) {
                stillFull.addSuppressed(full);
                throw stillFull;
            }
        }
    }

    private boolean mayFreeNow() {
        return config.freesDuringCapture() || openSessions == 0 && freeHolds == 0;
    }

    /** Device frees held back until it closes: see {@link #holdFrees()}. */
    public interface FreeHold extends AutoCloseable {
        /** Lets frees happen again and enforces the reserve. */
        @Override
        void close();
    }

    /**
     * Holds every device free back until the returned hold closes, for a window whose memory session closes before
     * its driver capture ends: an update pins its window before the driver applies it, and a free in between would
     * invalidate the capture ({@code cuMemFree} while a stream captures: 900 STREAM_CAPTURE_UNSUPPORTED).
     */
    public FreeHold holdFrees() {
        lock.lock();
        try {
            freeHolds++;
        } finally {
            lock.unlock();
        }
        boolean[] closedOnce = new boolean[1];
        return () -> {
            lock.lock();
            try {
                if (!closedOnce[0]) {
                    closedOnce[0] = true;
                    freeHolds--;
                    enforceReserve();
                }
            } finally {
                lock.unlock();
            }
        };
    }

    /** An allocation outside every capture window. */
    public PoolSlice allocateDynamic(long bytes) {
        boolean[] grew = new boolean[1];
        PoolSlice slice;
        long reservedBefore;
        long reservedAfter;
        lock.lock();
        try {
            checkOpen();
            reservedBefore = fromDevice;
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
            reservedAfter = fromDevice;
        } finally {
            lock.unlock();
        }
        if (grew[0]) {
            // What the device gave (a whole page for a size-class slot), so the figures add up to reservedBytes.
            grew("dynamic", bytes, reservedAfter - reservedBefore);
        }
        return slice;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the " + backend + " runtime's memory is closed");
        }
    }

    /** Opens the memory side of a capture window for a stream. */
    public CaptureMemorySession openSession(long streamId, boolean mayGrowWhileRecording) {
        lock.lock();
        try {
            checkOpen();
            openSessions++;
        } finally {
            lock.unlock();
        }
        return new CaptureMemorySession(this, streamId, mayGrowWhileRecording);
    }

    /** A session closed (pinned or aborted): the budget may apply again. Called under the lock. */
    void sessionClosed() {
        openSessions--;
        enforceReserve();
    }

    PoolSlice allocateInWindow(CaptureMemorySession session, long bytes) {
        long size = config.align(bytes);
        boolean[] grew = new boolean[1];
        PoolSlice slice;
        lock.lock();
        try {
            checkOpen();
            slice = session.serve(size, persistent, grew);
        } finally {
            lock.unlock();
        }
        if (grew[0]) {
            grew("persistent", bytes, size);
        }
        return slice;
    }

    void ensureFree(CaptureMemorySession session, long size, int count) {
        long aligned = config.align(size);
        int grown = 0;
        lock.lock();
        try {
            checkOpen();
            for (int missing = count - persistent.takeableCount(aligned, session); missing > 0; missing--) {
                persistent.grow(aligned).inUse = false;
                grown++;
            }
        } finally {
            lock.unlock();
        }
        if (grown > 0) {
            grew("persistent headroom", (long) grown * aligned, (long) grown * aligned);
        }
    }

    /**
     * The owner of a slice (a buffer whose last holder let go, an evicted cache entry) is done with it. A no-op
     * once the runtime's memory is closed (everything was freed then).
     */
    public void release(PoolSlice slice) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (!slice.inUse) {
                throw new IllegalStateException("released twice: " + slice);
            }
            if (!(slice.page() instanceof DeviceAllocation)) {
                small.release(slice);
            } else {
                slice.inUse = false;
                enforceReserve();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Keeps at most {@link PoolConfig#reserveBytes()} of free exact-fit memory, returning the oldest unused
     * allocations to the device. Called under the lock; a failing free is logged and the slice kept.
     */
    private void enforceReserve() {
        if (closed || !mayFreeNow() || config.reserveBytes() == Long.MAX_VALUE) {
            return;
        }
        long free = large.trimmableBytes() + persistent.trimmableBytes();
        if (free <= config.reserveBytes()) {
            return;
        }
        // Dynamic allocations go first: the capture pool's free slices are what the next warm-up would re-prime.
        List<RuntimeException> failures = new ArrayList<>();
        large.trimDownTo(Math.max(0, config.reserveBytes() - persistent.trimmableBytes()), failures);
        persistent.trimDownTo(Math.max(0, config.reserveBytes() - large.trimmableBytes()), failures);
        for (RuntimeException failure : failures) {
            LOG.warn(
                    "{}: returning an unused allocation to the device failed (kept in the pool): {}",
                    backend,
                    failure.toString());
        }
    }

    long pinWindow(CaptureMemorySession session, long graphId) {
        lock.lock();
        try {
            List<PoolSlice> pinned = new ArrayList<>(session.recorded());
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
                enforceReserve();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns every free slice and page no window or graph holds to the device; returns the bytes freed. On a
     * hardware-graph backend with a capture window open it frees nothing (a driver call could invalidate the
     * capture). Every free is tried; the first failure is thrown after the others ran, the slice kept.
     */
    public long trim() {
        lock.lock();
        try {
            if (closed || !mayFreeNow()) {
                return 0;
            }
            List<RuntimeException> failures = new ArrayList<>();
            long freed = small.trim(failures) + large.trim(failures) + persistent.trim(failures);
            throwFirst(failures, "trim");
            return freed;
        } finally {
            lock.unlock();
        }
    }

    private static void throwFirst(List<RuntimeException> failures, String operation) {
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException first = failures.get(0) instanceof dev.graphrt.api.GraphRTException
                ? failures.get(0)
                : new DriverException(operation + ": device free", failures.get(0));
        failures.stream().skip(1).forEach(first::addSuppressed);
        throw first;
    }

    /** Accounting: what the pools reserve, hand out, keep free and pin; the caller knows what graphs retain. */
    public MemoryStats stats(long retainedByGraphsBytes) {
        lock.lock();
        try {
            Map<PoolSlice, Boolean> distinct = new IdentityHashMap<>();
            for (List<PoolSlice> slices : pinsByGraph.values()) {
                for (PoolSlice slice : slices) {
                    distinct.put(slice, Boolean.TRUE);
                }
            }
            long pinned =
                    distinct.keySet().stream().mapToLong(PoolSlice::capacity).sum();
            return new MemoryStats(
                    small.reserved() + large.reserved() + persistent.reserved(),
                    small.inUseBytes() + large.inUseBytes() + persistent.inUseBytes(),
                    persistent.freeBytes(),
                    pinned,
                    pinnedBytesByGraph,
                    retainedByGraphsBytes);
        } finally {
            lock.unlock();
        }
    }

    /** Free exact-fit bytes the pools keep now: what {@link PoolConfig#reserveBytes()} bounds. */
    public long exactFitFreeBytes() {
        lock.lock();
        try {
            return large.trimmableBytes() + persistent.trimmableBytes();
        } finally {
            lock.unlock();
        }
    }

    /** Whether an allocation of {@code bytes} outside every window is served exact-fit (above the size classes). */
    public boolean exactFit(long bytes) {
        return bytes > config.maxPooledBytes();
    }

    /** The free exact-fit memory the pools may keep. */
    public long reserveBytes() {
        return config.reserveBytes();
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

    /**
     * Frees every allocation: the runtime is closing. Every free is tried, whatever failed before it; the
     * first failure is thrown once all were tried. Idempotent; later calls of every kind are no-ops.
     */
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            List<RuntimeException> failures = new ArrayList<>();
            small.freeAll(failures);
            large.freeAll(failures);
            persistent.freeAll(failures);
            pinsByGraph.clear();
            pinnedBytesByGraph.clear();
            throwFirst(failures, "close");
        } finally {
            lock.unlock();
        }
    }
}
