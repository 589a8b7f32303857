package dev.graphrt.core.memory;

import dev.graphrt.api.CaptureRejectedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The memory side of one stream's capture window, from {@code prepare()} to the end or abort.
 *
 * <p>While priming (PREPARE) every slice handed out is also held by the session, even after its buffer is
 * closed, so the persistent pool grows to the warm-up's distinct working set rather than its peak: the
 * recorded run, whose frees are deferred until the end, then finds a free slice for each allocation.
 * Holds are dropped at each pass boundary, so N warm-up passes need one pass's slices, not N times as many.
 * Every slice the window touches is reserved for it while the window is open; the slices the recorded run took
 * are pinned to the graph at the end.
 */
public final class CaptureMemorySession {
    enum Phase {
        PRIMING,
        RECORDING,
        CLOSED
    }

    private final MemoryManager manager;
    private final long streamId;
    private final boolean mayGrowWhileRecording;
    private final List<PoolSlice> primedThisPass = new ArrayList<>();
    private final Set<PoolSlice> touched = new LinkedHashSet<>();
    /** Slices the recorded run took: what the graph's recording may name, so what is pinned to it. */
    private final Set<PoolSlice> recorded = new LinkedHashSet<>();
    /** Per exact size, the most slices one warm-up pass took: what the recorded run will ask for. */
    private final Map<Long, Integer> passDemand = new HashMap<>();

    private Phase phase = Phase.PRIMING;
    private @Nullable String doomedReason;

    CaptureMemorySession(MemoryManager manager, long streamId, boolean mayGrowWhileRecording) {
        this.manager = manager;
        this.streamId = streamId;
        this.mayGrowWhileRecording = mayGrowWhileRecording;
    }

    /** A persistent slice for the window: primed in PREPARE; from free slices (or grown, if allowed) in CAPTURE. */
    public PoolSlice allocate(long bytes) {
        return manager.allocateInWindow(this, bytes);
    }

    PoolSlice serve(long size, ExactFitPool persistent, boolean[] grew) {
        if (phase == Phase.CLOSED) {
            throw new IllegalStateException("capture memory session of stream #" + streamId + " is closed");
        }
        PoolSlice slice = persistent.take(size, this);
        if (slice == null) {
            if (phase == Phase.RECORDING && !mayGrowWhileRecording) {
                String reason = "allocate(" + size + " bytes): stream #" + streamId + " is recording a capture and "
                        + "the persistent pool has no free slice of that size; growing it would call the driver "
                        + "inside the capture. Warm up with the same shapes first (CaptureOptions.warmups(1) or "
                        + "run the step between prepare() and beginCapture()) so the pool is primed";
                if (doomedReason == null) {
                    doomedReason = reason;
                }
                throw new CaptureRejectedException(reason + "; this capture can no longer end in a graph");
            }
            slice = persistent.grow(size);
            grew[0] = true;
        }
        slice.window = this;
        touched.add(slice);
        if (phase == Phase.RECORDING) {
            recorded.add(slice);
        }
        if (phase == Phase.PRIMING) {
            slice.primedHeld = true;
            primedThisPass.add(slice);
        }
        return slice;
    }

    /**
     * Makes sure at least {@code count} free slices of {@code size} bytes wait in the persistent pool, growing
     * it now, before any driver capture opens. Used for info-buffer headroom on backends whose capture window
     * may not grow the pool: a new info block during the recording then needs no device allocation. Slices
     * the window never takes stay free and are not pinned.
     */
    public void ensureFree(long size, int count) {
        manager.ensureFree(this, size, count);
    }

    /** Ends one warm-up pass: the slices it primed become free for the next pass (still reserved here). */
    public void endPass() {
        manager.withLock(() -> {
            noteDemand();
            dropHolds();
        });
    }

    /**
     * Ends priming ({@code beginCapture}): held slices return free, and the recorded run reuses them. Where the
     * recorded run may not grow the pool, it is topped up now, before any driver capture opens, to the slices of
     * each size one pass took: what the warm-up still keeps open (an output the step allocated and returned, a
     * buffer checked mode still reads) is not free, yet the recorded run allocates it again.
     */
    public void endPriming() {
        Map<Long, Integer> demand = new HashMap<>();
        manager.withLock(() -> {
            noteDemand();
            dropHolds();
            if (phase == Phase.PRIMING) {
                phase = Phase.RECORDING;
                demand.putAll(passDemand);
            }
        });
        if (!mayGrowWhileRecording) {
            demand.forEach((size, count) -> manager.ensureFree(this, size, count));
        }
    }

    /** Keeps, per size, the high-water count of slices one pass took (called under the manager's lock). */
    private void noteDemand() {
        if (phase != Phase.PRIMING || primedThisPass.isEmpty()) {
            return;
        }
        Map<Long, Integer> pass = new HashMap<>();
        for (PoolSlice slice : primedThisPass) {
            pass.merge(slice.sizeKey(), 1, Integer::sum);
        }
        pass.forEach((size, count) -> passDemand.merge(size, count, Math::max));
    }

    private void dropHolds() {
        for (PoolSlice slice : primedThisPass) {
            slice.primedHeld = false;
        }
        primedThisPass.clear();
    }

    /** Why the window can no longer become a replayable graph, if it can't. */
    public Optional<String> doomed() {
        return Optional.ofNullable(doomedReason);
    }

    /** Pins every touched slice to {@code graphId} and closes the session. Returns the pinned bytes. */
    public long pinTo(long graphId) {
        return manager.pinWindow(this, graphId);
    }

    /** Drops every hold and reservation without pinning anything (cancel, failed end). Idempotent. */
    public void abort() {
        manager.withLock(this::closeWithoutPins);
    }

    void closeWithoutPins() {
        if (phase == Phase.CLOSED) {
            return;
        }
        dropHolds();
        for (PoolSlice slice : touched) {
            if (slice.window == this) {
                slice.window = null;
            }
        }
        touched.clear();
        recorded.clear();
        phase = Phase.CLOSED;
        manager.sessionClosed();
    }

    Set<PoolSlice> touched() {
        return touched;
    }

    /**
     * The slices the recorded run took, which its graph may name and so keeps pinned. A slice only a warm-up pass
     * took is named by no recorded operation: once its buffer closes it is free for anyone (a buffer the warm-up
     * kept open and the recording uses is retained by the graph like any buffer it uses).
     */
    Set<PoolSlice> recorded() {
        return recorded;
    }

    boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    public long streamId() {
        return streamId;
    }
}
