package dev.graphrt.core.runtime;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.ReleaseFailedException;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.DropQueue;
import dev.graphrt.core.memory.FenceWait;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.metadata.MetadataCache;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One stream's memory (DESIGN.md section 4): where its allocations come from in each capture state, the storage
 * of its info buffers, what its operations hold (buffers, and the graphs a recording replays) until the work
 * using them is done, the graphs it sealed until their release, and back-pressure on staged writes.
 *
 * <p>The memory-safety rules live here: a hold is taken before the backend sees the storage, and after anything
 * that can allocate (an allocation is a flush point that fences the epoch); every wait is bounded by the wait
 * timeout; deferred releases fail one at a time and are reported later. Not thread-safe: the stream calls it
 * under its lock, except {@link #queueRelease}, which any thread may call.
 */
final class StreamMemory {

    /** Builds the stream's capture lifecycle over this memory's metadata cache and drop queue. */
    @FunctionalInterface
    interface LifecycleFactory {
        CaptureLifecycle create(MetadataCache metadata, DropQueue drops);
    }

    private final long streamId;
    private final StreamHost runtime;
    private final BackendStream backend;
    private final DeviceMemory device;
    private final MemoryManager memory;
    private final OperationPolicy policy;
    private final DropQueue drops;
    private final MetadataCache metadata;
    private final CaptureLifecycle lifecycle;
    private final Set<CoreGraph> liveGraphs = new LinkedHashSet<>();
    /** Graphs whose last holder let go while the lock was busy (a Java kernel closing one): released at the next flush point. */
    private final ConcurrentLinkedQueue<CoreGraph> unusedGraphs = new ConcurrentLinkedQueue<>();
    /** Backend graphs whose destroy failed: tried again at the next synchronize and when the stream closes. */
    private final List<Undestroyed> undestroyed = new ArrayList<>();

    private final Duration waitTimeout;
    private final long stagingLimit;
    private long stagedBytes;
    /** Who keeps a buffer a launch holds (the window, or the epoch's fence), made once: a launch allocates none. */
    private final Consumer<Retainable> windowHolder;

    private final Consumer<Retainable> epochHolder;

    /**
     * @param joined whether the stream now takes part in another stream's capture (fork/join): its driver stream is
     *               capturing then, so its own deferred releases must fence nothing until that capture ends
     */
    StreamMemory(
            long streamId,
            StreamHost runtime,
            BackendStream backend,
            LifecycleFactory lifecycles,
            BooleanSupplier joined) {
        this.streamId = streamId;
        this.runtime = runtime;
        this.backend = backend;
        this.device = runtime.backend().memory();
        this.memory = runtime.memory();
        this.policy = runtime.policy();
        this.waitTimeout = runtime.options().waitTimeout();
        this.stagingLimit = runtime.options().stagingBytes();
        this.drops = new DropQueue(
                backend,
                "stream #" + streamId,
                runtime::nextStamp,
                runtime.scope()::closedWhileHeldCount,
                () -> !joined.getAsBoolean() && !runtime.anotherCaptureForbidsDeviceCalls(streamId));
        this.metadata = new MetadataCache(
                runtime.options().metadataCacheEntries(), runtime.options().metadataMaxEntryBytes(), new InfoStorage());
        this.lifecycle = lifecycles.create(metadata, drops);
        this.windowHolder = lifecycle::holdInWindow;
        this.epochHolder = drops::hold;
        this.lifecycle.onFailedDestroy(graph -> undestroyed.add(
                new Undestroyed("stream #" + streamId + ": the graph of a rejected capture (destroy)", graph)));
    }

    /** Info buffers come from the same state-aware allocator as user buffers and leave through the drop queue. */
    private final class InfoStorage implements MetadataCache.Storage {
        @Override
        public PoolSlice allocate(long bytes) {
            return StreamMemory.this.allocate(bytes);
        }

        @Override
        public void upload(PoolSlice slice, int[] words, int count) {
            device.upload(
                    slice.storage().prefix(count * 4L),
                    MemorySegment.ofArray(words).asSlice(0, count * 4L));
        }

        @Override
        public void deferFree(PoolSlice slice) {
            drops.defer("an info buffer", () -> memory.release(slice));
        }

        @Override
        public void freeUnused(PoolSlice slice) {
            memory.release(slice);
        }
    }

    CaptureLifecycle lifecycle() {
        return lifecycle;
    }

    // ---- allocation --------------------------------------------------------------------------------

    /** A slice from the pool the capture state selects; outside a window a flush point comes first. */
    PoolSlice allocate(long bytes) {
        return switch (policy.allocation(lifecycle.current())) {
            case DYNAMIC_POOL -> {
                flushPoint();
                awaitReleasesBeyondReserve(bytes);
                yield memory.allocateDynamic(bytes);
            }
            case PERSISTENT_PRIMED, PERSISTENT_WINDOW -> lifecycle.allocate(bytes);
        };
    }

    /**
     * The budget counts memory on its way back: closed buffers that work in flight still holds are free memory to
     * be. When those and the free exact-fit memory would exceed the reserve, this stream's releases are waited for
     * (bounded) before the pool grows, so a host that never synchronises does not make the pools hoard: the released
     * allocations come back and the reserve trims them, instead of new ones piling up beside them.
     */
    private void awaitReleasesBeyondReserve(long bytes) {
        if (!memory.exactFit(bytes) || drops.inFlightBatches() + drops.heldCount() == 0) {
            return;
        }
        long awaiting = runtime.scope().awaitingReleaseBytes();
        if (awaiting == 0 || awaiting + memory.exactFitFreeBytes() + bytes <= memory.reserveBytes()) {
            return;
        }
        drops.flushAndWait(waitTimeout, "released memory to come back before the pool grows");
    }

    /**
     * The device slice holding a launch's info words, the first {@code count} of {@code words} (cached); null when
     * there are none. May allocate.
     */
    @Nullable
    DeviceSlice info(int[] words, int count) {
        return count == 0 ? null : metadata.lookup(words, count);
    }

    // ---- holds -------------------------------------------------------------------------------------

    /**
     * Holds {@code buffer} for the operation being enqueued: in the open recording while capturing, else in
     * this stream's current epoch. Refuses a buffer whose storage is already gone (closed concurrently). Take it
     * after anything that may allocate, so no fence falls between the hold and the operation it protects.
     */
    void hold(CoreBuffer buffer, String argument) {
        boolean held = lifecycle.isRecording()
                ? buffer.holdFor(lifecycle.windowStamp(), windowHolder)
                : buffer.holdFor(drops.epoch(), epochHolder);
        if (!held) {
            throw new IllegalArgumentException(argument + ": " + buffer + " is closed");
        }
    }

    /**
     * Holds {@code resource} (a communicator) for the operation being enqueued: in the open recording while
     * capturing (the graph keeps it), else until this stream's work so far is done. Refuses one already gone.
     */
    void holdResource(Retainable resource, String argument) {
        if (!resource.retain()) {
            throw new IllegalStateException(argument + ": " + resource + " is closed");
        }
        if (lifecycle.isRecording()) {
            lifecycle.holdInWindow(resource);
        } else {
            drops.hold(resource);
        }
    }

    /**
     * Keeps {@code hold} (already taken) until this stream's work so far is done: the next fence that passes lets it
     * go. For a hold the buffer stamps cannot track, such as another runtime's buffer in a copy between runtimes.
     */
    void holdUntilDone(Retainable hold) {
        drops.hold(hold);
    }

    /**
     * Holds a graph the open recording replays, and every buffer (or graph) it holds: the new graph replays the
     * child's work, so it keeps the child's storage, pins and info buffers for as long as it lives.
     */
    void holdChild(CoreGraph child) {
        if (!child.retain()) {
            throw new IllegalStateException("graph: " + child + " is closed and cannot be replayed");
        }
        lifecycle.holdInWindow(child);
        for (Retainable held : child.retained()) {
            if (!held.retain()) {
                throw new IllegalStateException("graph: " + child + " lost storage it retains");
            }
            lifecycle.holdInWindow(held);
        }
    }

    // ---- back-pressure and waits -------------------------------------------------------------------

    /**
     * Bounds the host bytes queued behind the device: once {@code stagingBytes} were written since the stream
     * last drained, the writer waits (bounded) for the work so far instead of staging more copies.
     */
    void beforeStagedWrite(long bytes) {
        stagedBytes += bytes;
        // While another capture forbids device calls the bound waits too: no fence may be recorded now.
        if (stagedBytes > stagingLimit && !runtime.anotherCaptureForbidsDeviceCalls(streamId)) {
            awaitAll("queued writes to drain (more than " + stagingLimit + " bytes staged)");
            stagedBytes = bytes;
        }
    }

    /** Enqueues a host-to-device copy, turning the JVM running out of staging memory into a typed error. */
    void stagedWrite(DeviceSlice target, MemorySegment data) {
        try {
            backend.write(target, data);
        } catch (OutOfMemoryError exhausted) {
            throw new DeviceOutOfMemoryException(
                    "write: stream #" + streamId + " could not stage " + data.byteSize()
                            + " bytes of host data (the JVM is out of memory); synchronize() or lower "
                            + "RuntimeOptions.stagingBytes",
                    data.byteSize(),
                    exhausted);
        }
    }

    /** Waits, at most the wait timeout, for every operation enqueued so far. Never while recording. */
    void awaitAll(String waitingFor) {
        FenceWait.await(backend, backend.recordFence(), waitTimeout, "stream #" + streamId, waitingFor);
        stagedBytes = 0;
    }

    // ---- releases ----------------------------------------------------------------------------------

    /**
     * Releases graphs nobody holds any more and, where the policy allows a fence, returns finished releases to
     * the pools; never blocks. A release that lets a child graph go queues the child, so this repeats until
     * no graph is queued.
     */
    void flushPoint() {
        do {
            releaseUnusedGraphs();
            if (policy.release(lifecycle.current()) == OperationPolicy.ReleaseAction.FENCE_AND_RECLAIM) {
                drops.flush(); // which itself fences nothing while another capture forbids device calls
            }
        } while (!unusedGraphs.isEmpty() && !lifecycle.isRecording());
    }

    /** The stream was just synchronised: everything queued and held is done with, graphs let go included. */
    void afterSync() {
        retryDestroys();
        drops.releaseAllAfterSync();
        while (!unusedGraphs.isEmpty()) {
            releaseUnusedGraphs();
            drops.releaseAllAfterSync();
        }
    }

    /** The releases that failed since the last call, as one error; empty when none did. */
    Optional<ReleaseFailedException> takeFailures() {
        return drops.takeFailures();
    }

    // ---- graphs ------------------------------------------------------------------------------------

    /** A graph this stream sealed: released when its last holder lets go, or when the stream closes. */
    void adopt(CoreGraph graph) {
        liveGraphs.add(graph);
    }

    /** Queues a graph nobody holds any more; any thread may call this, and it never blocks. */
    void queueRelease(CoreGraph graph) {
        unusedGraphs.add(graph);
    }

    private void releaseUnusedGraphs() {
        for (CoreGraph graph; (graph = unusedGraphs.poll()) != null; ) {
            release(graph);
        }
    }

    /** Defers a graph's destroy, unpin and releases behind the stream's work so far. Once per graph. */
    private void release(CoreGraph graph) {
        if (!liveGraphs.remove(graph)) {
            return;
        }
        runtime.graphReleased(graph);
        SealedWindow window = graph.window();
        deferDestroy("graph #" + graph.id() + " (destroy)", window.graph());
        releaseWindow(graph, window);
    }

    /** A backend graph to destroy and what it was, kept when its destroy failed. */
    private record Undestroyed(String what, BackendGraph graph) {}

    /**
     * Destroys {@code graph} behind the stream's work so far. A destroy that fails is reported like any deferred
     * release and kept: it is tried again at the next synchronize and when the stream (or its runtime) closes, as a
     * failed device free is tried again at the next trim, so one failure never leaks the graph for good.
     */
    private void deferDestroy(String what, BackendGraph graph) {
        drops.defer(what, () -> {
            try {
                backend.destroy(graph);
            } catch (RuntimeException | Error failure) {
                undestroyed.add(new Undestroyed(what, graph));
                throw failure;
            }
        });
    }

    /** Queues another try of every destroy that failed (each once; a failure again keeps it for the next try). */
    private void retryDestroys() {
        if (undestroyed.isEmpty()) {
            return;
        }
        List<Undestroyed> again = new ArrayList<>(undestroyed);
        undestroyed.clear();
        for (Undestroyed failed : again) {
            deferDestroy(failed.what() + ", tried again", failed.graph());
        }
    }

    /**
     * An update or a rebind replaced {@code old} by {@code next} in {@code graph}: what only {@code old} had (its
     * backend graph, its pins and info buffers, its holds) is released behind the stream's work so far, so after
     * the last replay that used it, never before.
     */
    void retire(CoreGraph graph, SealedWindow old, SealedWindow next) {
        if (old.graph() != next.graph()) {
            deferDestroy("graph #" + graph.id() + " (the replaced recording's graph)", old.graph());
        }
        if (old.graphId() == next.graphId()) {
            for (Retainable held : old.retained()) {
                drops.defer("graph #" + graph.id() + " (a buffer the replaced recording retained)", held::release);
            }
        } else {
            releaseWindow(graph, old);
        }
        flushPoint();
    }

    /**
     * A rebind replaced {@code old} by {@code next}, which runs the same backend graph and took its own hold on
     * everything it keeps: the old window's holds on those go now (none reaches zero), and its holds on what
     * {@code next} dropped (the rebound {@code from}) join the stream's work so far, as an eager launch's do, let go
     * behind the next fence. So a rebind makes no device call of its own here; when the backend graph changed (a
     * software graph's rebind seals a new one), it retires as an update does ({@link #retire}). A rebound window keeps
     * its graph id ({@code SealedWindow.rebound}), so its pins stay as they are.
     */
    void retireRebound(CoreGraph graph, SealedWindow old, SealedWindow next) {
        if (old.graph() != next.graph()) {
            retire(graph, old, next);
            return;
        }
        Set<Retainable> kept = Collections.newSetFromMap(new IdentityHashMap<>());
        kept.addAll(next.retained());
        for (Retainable held : old.retained()) {
            if (kept.contains(held)) {
                held.release();
            } else {
                drops.hold(held);
            }
        }
        if (drops.epochFull()) {
            flushPoint();
        }
    }

    private void releaseWindow(CoreGraph graph, SealedWindow window) {
        drops.defer("graph #" + graph.id() + " (pins)", () -> {
            memory.unpin(window.graphId());
            metadata.release(window.graphId());
        });
        if (window.retained().isEmpty()) {
            return;
        }
        String retained = "graph #" + graph.id() + " (a retained buffer or graph)"; // one name for all of them
        for (Retainable held : window.retained()) {
            drops.defer(retained, held::release);
        }
    }

    /**
     * The stream is closing and its work is done (or timed out: then {@code drainBound} is tiny): releases every
     * graph whatever holds it, runs every deferred release, and clears the info cache. Never throws; returns
     * what failed. Memory whose work did not finish stays held until the runtime frees all its memory.
     */
    List<RuntimeException> releaseEverything(Duration drainBound) {
        List<RuntimeException> failures = new ArrayList<>();
        for (CoreGraph graph : new ArrayList<>(liveGraphs)) {
            graph.markClosed();
            release(graph);
        }
        releaseUnusedGraphs();
        retryDestroys();
        // Graph releases unpin info entries, so the cache is cleared after they ran, then drained again.
        Optional<RuntimeException> stuck = drops.drain(drainBound);
        stuck.ifPresent(failures::add);
        if (stuck.isEmpty() && !undestroyed.isEmpty()) {
            retryDestroys(); // one destroy failed while closing: the last chance to give the graph back
            drops.drain(drainBound).ifPresent(failures::add);
        }
        if (stuck.isEmpty()) {
            try {
                metadata.clearUnpinned();
            } catch (RuntimeException failure) {
                failures.add(failure);
            }
            drops.drain(drainBound).ifPresent(failures::add);
        }
        return failures;
    }
}
