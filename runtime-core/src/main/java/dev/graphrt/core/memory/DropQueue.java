package dev.graphrt.core.memory;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.ReleaseFailedException;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one stream's work keeps alive, and what it releases once that work is done: deferred releases (closed
 * graphs, evicted info buffers) and the holds of the current epoch (every buffer an operation of this stream
 * used since the last fence). A fence recorded behind them turns both into an in-flight batch; the batch runs
 * when the fence completes. The stream flushes only where its operation policy allows a fence (never while it
 * records a capture: a fence then would be captured, or let memory the window names be reused).
 *
 * <p>Each release runs on its own: a failing one never keeps the others from running. Failures are kept and
 * handed to the stream ({@link #takeFailures}) to report at its next synchronize or close. Every wait is
 * bounded. Not thread-safe: the owning stream serialises calls.
 */
public final class DropQueue {
    /** Beyond this many holds in one epoch the next flush point fences it, keeping the list bounded. */
    static final int EPOCH_LIMIT = 4096;

    /** One deferred release and what it releases (for error messages). */
    private record Release(String what, Runnable action) {}

    private record Batch(Fence fence, List<Release> releases, List<Retainable> holds) {}

    private final BackendStream stream;
    private final String streamName;
    private final LongSupplier epochIds;
    private final LongSupplier closedWhileHeld;
    private final BooleanSupplier fencesAllowed;
    private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
    private final List<String> failedWhat = new ArrayList<>();
    private @Nullable RuntimeException firstFailure;
    private List<Release> pending = new ArrayList<>();
    private List<Retainable> holds = new ArrayList<>();
    private long epoch;
    private long closesSeen;

    /**
     * @param epochIds        unique ids across the runtime, one per epoch (buffers remember the epoch holding them)
     * @param closedWhileHeld counts buffers closed by their user while some operation still held them; when it
     *                        moves, the next flush point fences the current epoch so those buffers can be freed
     */
    public DropQueue(BackendStream stream, String streamName, LongSupplier epochIds, LongSupplier closedWhileHeld) {
        this(stream, streamName, epochIds, closedWhileHeld, () -> true);
    }

    /**
     * @param fencesAllowed false while a fence or fence query on this stream is forbidden (another stream's
     *                      hardware capture forbids device calls): {@link #flush} then does nothing
     */
    public DropQueue(
            BackendStream stream,
            String streamName,
            LongSupplier epochIds,
            LongSupplier closedWhileHeld,
            BooleanSupplier fencesAllowed) {
        this.fencesAllowed = fencesAllowed;
        this.stream = stream;
        this.streamName = streamName;
        this.epochIds = epochIds;
        this.closedWhileHeld = closedWhileHeld;
        this.epoch = epochIds.getAsLong();
    }

    /** Queues a release behind the stream's work so far. */
    public void defer(String what, Runnable release) {
        pending.add(new Release(what, release));
    }

    /** The id of the current epoch: a buffer stamped with it is already held by this stream's work. */
    public long epoch() {
        return epoch;
    }

    /** Adds a hold (already taken) to the current epoch: released when the work so far is done. */
    public void hold(Retainable held) {
        holds.add(held);
    }

    /** Whether the epoch holds so many that the next flush point fences it even with nothing else pending. */
    public boolean epochFull() {
        return holds.size() >= EPOCH_LIMIT;
    }

    private boolean worthFencing() {
        if (!pending.isEmpty() || epochFull()) {
            return true;
        }
        return !holds.isEmpty() && closedWhileHeld.getAsLong() != closesSeen;
    }

    /** Puts a fence behind the pending releases and the epoch's holds, making them one in-flight batch. */
    private void fencePending() {
        if (pending.isEmpty() && holds.isEmpty()) {
            return;
        }
        closesSeen = closedWhileHeld.getAsLong();
        Fence fence = stream.recordFence();
        inFlight.addLast(new Batch(fence, pending, holds));
        pending = new ArrayList<>();
        holds = new ArrayList<>();
        epoch = epochIds.getAsLong();
    }

    /** Runs every batch whose fence completed; never blocks. */
    public void reclaim() {
        while (!inFlight.isEmpty() && complete(inFlight.getFirst().fence())) {
            run(inFlight.removeFirst());
        }
    }

    private boolean complete(Fence fence) {
        try {
            return stream.isComplete(fence);
        } catch (GraphRTException failure) {
            throw failure;
        } catch (RuntimeException failure) {
            throw new DriverException(streamName + ": fence query", failure);
        }
    }

    /**
     * Fences what is worth fencing and reclaims what is done; never blocks. Only where a fence is allowed: the
     * stream asks {@code OperationPolicy.release} first (never while recording).
     */
    public void flush() {
        if (!fencesAllowed.getAsBoolean()) {
            return;
        }
        if (worthFencing()) {
            fencePending();
        }
        reclaim();
    }

    /** The stream was just synchronised: every queued release and hold is done with. */
    public void releaseAllAfterSync() {
        while (!inFlight.isEmpty()) {
            run(inFlight.removeFirst());
        }
        List<Release> now = pending;
        List<Retainable> held = holds;
        pending = new ArrayList<>();
        holds = new ArrayList<>();
        if (!held.isEmpty()) {
            epoch = epochIds.getAsLong();
        }
        run(now, held);
    }

    /**
     * Fences everything, waits for it (at most {@code timeout}) and runs every release. Only outside a
     * recording: where a warm-up pass ends and before a capture opens, so the next pass or the recorded run can
     * reuse the slices the warm-up closed.
     */
    public void flushAndWait(Duration timeout, String waitingFor) {
        if (!fencesAllowed.getAsBoolean()) {
            return; // another capture forbids fences: what waits here stays queued (and the pool may grow instead)
        }
        fencePending();
        while (!inFlight.isEmpty()) {
            Batch batch = inFlight.getFirst();
            awaitBounded(batch.fence(), timeout, waitingFor);
            run(inFlight.removeFirst());
        }
    }

    /**
     * The stream is closing: fences what is left, waits for each batch (bounded) and runs it. A batch whose
     * fence fails or times out is not run, nor any after it: what it holds stays held (never handed to another
     * buffer) until the runtime frees all its memory. Returns that failure, if any; never throws.
     */
    public Optional<RuntimeException> drain(Duration timeout) {
        try {
            while (!inFlight.isEmpty() || !pending.isEmpty() || !holds.isEmpty()) {
                fencePending(); // a release may queue another (a graph's info buffers)
                while (!inFlight.isEmpty()) {
                    Batch batch = inFlight.getFirst();
                    awaitBounded(batch.fence(), timeout, "the releases of a closing stream");
                    run(inFlight.removeFirst());
                }
            }
            return Optional.empty();
        } catch (RuntimeException failure) {
            inFlight.clear();
            pending = new ArrayList<>();
            holds = new ArrayList<>();
            return Optional.of(failure);
        }
    }

    private void awaitBounded(Fence fence, Duration timeout, String waitingFor) {
        FenceWait.await(stream, fence, timeout, streamName, waitingFor);
    }

    private void run(Batch batch) {
        run(batch.releases(), batch.holds());
    }

    private void run(List<Release> releases, List<Retainable> holds) {
        for (Release release : releases) {
            try {
                release.action().run();
            } catch (RuntimeException failure) {
                recordFailure(release.what(), failure);
            }
        }
        for (Retainable held : holds) {
            try {
                held.release();
            } catch (RuntimeException failure) {
                recordFailure(held.releaseName(), failure);
            }
        }
    }

    private void recordFailure(String what, RuntimeException failure) {
        failedWhat.add(what);
        if (firstFailure == null) {
            firstFailure = failure;
        } else if (firstFailure != failure) {
            firstFailure.addSuppressed(failure);
        }
    }

    /** The releases that failed since the last call, as one error naming them; empty when none did. */
    public Optional<ReleaseFailedException> takeFailures() {
        if (firstFailure == null) {
            return Optional.empty();
        }
        ReleaseFailedException failure = new ReleaseFailedException(
                streamName + ": " + failedWhat.size()
                        + " deferred release(s) failed after the work that used them finished: "
                        + String.join(", ", failedWhat) + " (the first failure is the cause)",
                failedWhat,
                firstFailure);
        failedWhat.clear();
        firstFailure = null;
        return Optional.of(failure);
    }

    public int pendingCount() {
        return pending.size();
    }

    public int heldCount() {
        return holds.size();
    }

    public int inFlightBatches() {
        return inFlight.size();
    }
}
