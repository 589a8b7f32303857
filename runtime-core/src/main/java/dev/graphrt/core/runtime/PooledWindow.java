package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.memory.Retainable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stream's capture window into a {@link CorePool}, from {@code prepare(options)} to the end of the capture
 * (docs/decisions.md, "Graph pools"). The warm-up runs in memory of its own and shows which allocations the step
 * closes (temporaries) and which it keeps open (outputs); the recording lends intermediates of the pool to the
 * temporaries only; a window that ends without a graph moves every view still open to memory of its own.
 */
final class PooledWindow {
    private static final Logger LOG = LoggerFactory.getLogger(PooledWindow.class);

    private final long streamId;
    private final StreamHost host;
    private final OperationPolicy policy;
    private final StreamMemory memory;
    /** The graph pool of the open window; null when none. */
    private @Nullable CorePool pool;
    /** Intermediates this window borrowed, to the view using each: one view per intermediate, never reused in a run. */
    private final Map<CoreBuffer, CoreBuffer> borrowed = new IdentityHashMap<>();
    /** Buffers allocated while recording into the window: its intermediates once their users closed them. */
    private final List<CoreBuffer> recordedAllocations = new ArrayList<>();
    /** Intermediates this window borrowed at least once, each retained until the window ends. */
    private final Map<CoreBuffer, Boolean> windowRetains = new IdentityHashMap<>();
    /** What the graphs this window replays (as children, or eagerly in its warm-up) hold: never lent out. */
    private final Map<Retainable, Boolean> replayedHere = new IdentityHashMap<>();
    /** The window's allocations of the current warm-up pass, in order: which the step closed tells outputs apart. */
    private final List<CoreBuffer> passAllocations = new ArrayList<>();
    /**
     * Per requested size, how many allocations of the last warm-up pass were temporaries: a size is lent only when
     * that pass closed every allocation of it, since a step may allocate an output on first use only (the warm-up's
     * order then differs from the recording's and a position would name an output a temporary).
     */
    private final Map<Long, Integer> warmupTemporaries = new HashMap<>();
    /** Per requested size, how many allocations the recording made so far. */
    private final Map<Long, Integer> recordedBySize = new HashMap<>();

    PooledWindow(long streamId, StreamHost host, StreamMemory memory) {
        this.streamId = streamId;
        this.host = host;
        this.policy = host.policy();
        this.memory = memory;
    }

    /** The window's pool (bound to the stream already), or null to open a window without one. */
    void open(@Nullable CorePool windowPool) {
        pool = windowPool;
    }

    @Nullable
    CorePool pool() {
        return pool;
    }

    /** {@code beginCapture} must name the pool {@code prepare} named; the stream stays in PREPARE otherwise. */
    void checkSamePool(dev.graphrt.api.@Nullable GraphPool named) {
        if (named != pool) {
            throw new GraphStateException("beginCapture: stream #" + streamId + " was prepared "
                    + (pool == null ? "without a graph pool" : "for " + pool) + " but the options "
                    + (named == null ? "name none" : "name " + named) + "; give the same pool to prepare(options) "
                    + "and beginCapture(options); the stream is still in PREPARE");
        }
    }

    /**
     * A temporary of the recording (not in checked mode), lent as a view of an intermediate no view of this run
     * uses; null when none fits, or unless the step's last warm-up pass closed every allocation of this size and
     * made at least as many as the recording has so far.
     */
    @Nullable
    CoreBuffer borrow(long bytes, CaptureState state, boolean checked) {
        if (pool == null || checked || policy.pool(state) != OperationPolicy.PoolAction.LEND_TEMPORARIES) {
            return null;
        }
        int index = recordedBySize.merge(bytes, 1, Integer::sum) - 1;
        if (index >= warmupTemporaries.getOrDefault(bytes, 0)) {
            return null;
        }
        CoreBuffer owner = pool.borrow(bytes, borrowed, replayedHere);
        if (owner == null) {
            return null;
        }
        if (windowRetains.containsKey(owner)) {
            // already retained for the window: the view takes the hold borrow() took
        } else if (owner.retain()) {
            windowRetains.put(owner, Boolean.TRUE);
        }
        CoreBuffer view = new CoreBuffer(host.scope(), host.nextBufferId(), owner, bytes);
        borrowed.put(owner, view);
        return view;
    }

    /** An allocation of the window's own stream, made in its own memory: noted for the warm-up or the recording. */
    void allocated(CoreBuffer buffer, CaptureState state) {
        if (pool == null) {
            return;
        }
        switch (policy.pool(state)) {
            case NONE -> {}
            case NOTE_WARMUP -> passAllocations.add(buffer);
            case LEND_TEMPORARIES -> recordedAllocations.add(buffer);
        }
    }

    /** A warm-up pass ended: what it closed and kept open is what the recording will do (the last pass is kept). */
    void endPass() {
        borrowed.values().removeIf(CoreBuffer::isClosed);
        if (pool == null || passAllocations.isEmpty()) {
            return;
        }
        warmupTemporaries.clear();
        Map<Long, Boolean> keptOpen = new HashMap<>();
        for (CoreBuffer buffer : passAllocations) {
            if (buffer.isClosed()) {
                warmupTemporaries.merge(buffer.byteSize(), 1, Integer::sum);
            } else {
                keptOpen.put(buffer.byteSize(), Boolean.TRUE);
            }
        }
        warmupTemporaries.keySet().removeAll(keptOpen.keySet());
        passAllocations.clear();
    }

    /** The graph just sealed holds its recorded allocations; those its user closed become the pool's intermediates. */
    void registerIntermediates() {
        if (pool != null) {
            for (CoreBuffer buffer : recordedAllocations) {
                // Only a temporary that the new graph alone holds: another stream's work or capture may still use it.
                if (buffer.isClosed() && buffer.holdCount() == 1) {
                    pool.addIntermediate(buffer);
                }
            }
        }
    }

    /**
     * No view may be left open when the graph is sealed: it would share memory the pool's other graphs write. Refused
     * with the capture intact; once the window ends the view gets memory of its own.
     */
    void refuseOpenViews(String operation) {
        for (CoreBuffer view : borrowed.values()) {
            if (!view.isClosed()) {
                throw new CaptureRejectedException(operation + ": " + view + " was allocated inside this capture into "
                        + "graph pool memory, because the warm-up closed the same allocation, and is still open; the "
                        + "recording must keep and close what the warm-up did (an output the step keeps open in its "
                        + "warm-up gets memory of its own); the capture is intact: cancel it, and the buffer then "
                        + "gets memory of its own");
            }
        }
    }

    /**
     * A replay inside the window (as a child, or eagerly in its warm-up) of a graph holding memory this window lent
     * to a live temporary would overwrite it: refused; otherwise what the graph holds is never lent out here.
     */
    void checkReplay(CoreGraph target, CaptureState state) {
        if (pool == null || policy.pool(state) == OperationPolicy.PoolAction.NONE) {
            return;
        }
        for (Retainable held : target.retained()) {
            CoreBuffer view = held instanceof CoreBuffer buffer ? borrowed.get(buffer) : null;
            if (view != null && !view.isClosed()) {
                throw new IllegalStateException("replay: " + target + " uses memory this pooled capture lent to "
                        + view + ", which is still open; replay it before allocating that temporary, or outside the "
                        + "pooled capture");
            }
        }
        for (Retainable held : target.retained()) {
            replayedHere.put(held, Boolean.TRUE);
        }
    }

    /**
     * The window ended (sealed, cancelled or aborted) when the stream is back in NO_CAPTURE: nothing of it is
     * borrowed or recorded any more, and a view still open (left by a refused or cancelled window) gets memory of
     * its own, so no buffer the user keeps shares an intermediate another graph replays into.
     */
    void endIfClosed(CaptureState state) {
        if (policy.windowOpen(state)) {
            return;
        }
        for (CoreBuffer view : borrowed.values()) {
            if (!view.isClosed()) {
                privatize(view);
            }
        }
        pool = null;
        passAllocations.clear();
        warmupTemporaries.clear();
        recordedBySize.clear();
        borrowed.clear();
        recordedAllocations.clear();
        replayedHere.clear();
        windowRetains.keySet().forEach(CoreBuffer::release);
        windowRetains.clear();
    }

    /** Moves an open view of an undone window to a slice of its own; failing that, its handle is closed. */
    private void privatize(CoreBuffer view) {
        try {
            view.privatize(memory.allocate(view.byteSize()));
            LOG.debug("stream #{}: {} left open by an undone pooled capture now has memory of its own", streamId, view);
        } catch (RuntimeException failure) {
            LOG.warn(
                    "stream #{}: {} was left open by an undone pooled capture and could not get memory of its own; "
                            + "it is closed: {}",
                    streamId,
                    view,
                    failure.toString());
            view.close();
        }
    }
}
