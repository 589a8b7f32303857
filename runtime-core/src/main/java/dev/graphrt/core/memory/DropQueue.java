package dev.graphrt.core.memory;

import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Deferred releases of one stream (closed buffers, evicted info buffers, closed graphs). A release runs
 * only once a fence recorded after it shows the stream finished every earlier operation. No fence is
 * recorded while the stream records a capture: a fence then would be captured (hardware) or would let
 * memory the window still names be reused; the batch waits for the end of the window.
 * Not thread-safe: the owning stream serialises calls.
 */
public final class DropQueue {
    private record Batch(Fence fence, List<Runnable> releases) {
    }

    private final BackendStream stream;
    private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
    private List<Runnable> pending = new ArrayList<>();

    public DropQueue(BackendStream stream) {
        this.stream = stream;
    }

    /** Queues a release behind the stream's work so far. */
    public void defer(Runnable release) {
        pending.add(release);
    }

    /** Puts a fence behind the pending releases, making them one in-flight batch. */
    private void fencePending() {
        if (!pending.isEmpty()) {
            inFlight.addLast(new Batch(stream.recordFence(), pending));
            pending = new ArrayList<>();
        }
    }

    /** Runs every batch whose fence completed; never blocks. */
    public void reclaim() {
        while (!inFlight.isEmpty() && stream.isComplete(inFlight.peekFirst().fence())) {
            runAll(inFlight.pollFirst().releases());
        }
    }

    /** Fences the pending releases (unless recording) and reclaims what is done. */
    public void flush(boolean recording) {
        if (recording) {
            return;
        }
        fencePending();
        reclaim();
    }

    /** The stream was just synchronised: every queued release is safe now. */
    public void releaseAllAfterSync() {
        while (!inFlight.isEmpty()) {
            runAll(inFlight.pollFirst().releases());
        }
        List<Runnable> now = pending;
        pending = new ArrayList<>();
        runAll(now);
    }

    /**
     * Fences everything pending, waits for it and runs every release. Only outside a recording: used where a
     * warm-up pass ends and before a capture opens, so the next pass or the recorded run can reuse the slices
     * the warm-up closed.
     */
    public void flushAndWait() {
        fencePending();
        while (!inFlight.isEmpty()) {
            Batch batch = inFlight.pollFirst();
            stream.await(batch.fence());
            runAll(batch.releases());
        }
    }

    /** Waits for every fence and runs everything: the stream is closing. */
    public void drain() {
        while (!inFlight.isEmpty() || !pending.isEmpty()) {
            while (!inFlight.isEmpty()) {
                Batch batch = inFlight.pollFirst();
                stream.await(batch.fence());
                runAll(batch.releases());
            }
            List<Runnable> now = pending;
            pending = new ArrayList<>();
            runAll(now);
        }
    }

    private static void runAll(List<Runnable> releases) {
        for (Runnable release : releases) {
            release.run();
        }
    }

    public int pendingCount() {
        return pending.size();
    }

    public int inFlightBatches() {
        return inFlight.size();
    }
}
