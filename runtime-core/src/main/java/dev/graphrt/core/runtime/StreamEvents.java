package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.Fence;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * A stream's events: recording one (a fence; inside a capture a point of the graph, which makes the capture span
 * streams), waiting for one (on the device where the backend can, else a bounded host wait; for an event of a
 * capture, joining that capture; for an event of a warm-up, joining that warm-up), and asking whether one is done.
 */
final class StreamEvents {
    /** No stream: {@code anotherCaptureForbidsDeviceCalls(NO_STREAM)} asks about every stream's capture. */
    private static final long NO_STREAM = -1;

    private final StreamContext c;

    StreamEvents(StreamContext c) {
        this.c = c;
    }

    StreamEvent record() {
        return c.guard().callJoined("record", null, origin -> {
            CaptureState state = c.membership().state();
            c.policy().checkEvent(state, "record() on stream #" + c.id());
            if (!c.policy().eventJoinsCapture(state)) {
                return new CoreEvent(
                        c.self(),
                        c.backend().recordFence(),
                        c.membership()
                                .warmupOf(c.policy().warmingUp(c.lifecycle().current())));
            }
            CaptureGroup group =
                    origin != null ? c.membership().group() : c.membership().ownGroup();
            Fence fence = c.membership().captureEventFence(c.self());
            CaptureGroup recording = Objects.requireNonNull(group, "a stream recording a capture has its group");
            return new CoreEvent(c.self(), fence, recording, recording.operations(c.self()));
        });
    }

    /**
     * Orders this stream's later work after {@code event}'s: on the device where the backend can, else by a host
     * wait bounded by the wait timeout. The other stream's backend is only asked for its (thread-safe) fence, never
     * under its lock, so two streams waiting for each other cannot deadlock here. An event recorded inside a
     * capture makes this stream join that capture (fork), or, for a stream already in it, orders it (join).
     */
    void waitFor(StreamEvent event) {
        c.host().checkOpen("waitFor");
        CoreEvent other = checkEvent(event);
        if (other.group() != null) {
            waitInCapture(other);
            return;
        }
        boolean hostWait = c.guard().call("waitFor", null, () -> {
            CaptureState state = c.membership().state();
            c.policy().checkEvent(state, "waitFor() on stream #" + c.id());
            c.policy().checkWaitForOutsideEvent(state, other.toString(), c.id());
            StreamPeer source = other.stream();
            boolean ordered = source == c.self()
                    || source.isClosed()
                    || c.backend().waitFor(source.backendStream(), other.hostFence());
            c.membership().joinWarmup(other.warmup());
            if (!ordered) {
                c.checkHostSyncBesideCapture("waitFor");
            }
            return !ordered; // stream order already; a closed stream's work is done; or the device waits
        });
        if (hostWait) {
            other.stream().awaitEvent(other.hostFence()); // a host wait, outside this stream's lock
        }
    }

    /** An event of a stream of this runtime; another runtime's is refused, naming the argument. */
    private CoreEvent checkEvent(StreamEvent event) {
        java.util.Objects.requireNonNull(event, "event");
        if (!(event instanceof CoreEvent core)
                || core.stream().scope() != c.host().scope()) {
            throw new IllegalArgumentException("event: " + event + " belongs to another runtime");
        }
        return core;
    }

    /**
     * A wait for an event of a capture: this stream joins that capture (fork), or is ordered inside it (join).
     * Whether it may is decided under this stream's lock alone, before the origin's is taken (always in that
     * order), so two streams of two captures waiting for each other's events are refused rather than deadlocked.
     */
    private void waitInCapture(CoreEvent event) {
        CaptureGroup target = Objects.requireNonNull(event.group(), "an event of a capture has its group");
        StreamPeer origin = target.origin();
        c.guard().lock().lock();
        try {
            c.guard().checkOpen("waitFor");
            boolean inside = c.membership().group() == target || origin == c.self();
            if (!inside
                    && (c.membership().group() != null
                            || !c.policy().mayJoinAnotherCapture(c.lifecycle().current()))) {
                throw new CaptureRejectedException("waitFor: stream #" + c.id() + " is in "
                        + c.membership().state() + " of another capture and cannot join stream #" + origin.id()
                        + "'s; a stream joins a capture from NO_CAPTURE");
            }
            if (origin != c.self()) {
                origin.lock().lock();
            }
            try {
                if (target.ended()) {
                    throw new IllegalStateException("waitFor: " + event + " belongs to a capture that has ended");
                }
                origin.lifecycle().checkCaller("waitFor on stream #" + c.id());
                c.policy().checkEvent(CaptureState.CAPTURE, "waitFor() on stream #" + c.id());
                if (event.stream() != c.self()
                        && event.fence() != null
                        && !c.backend().waitFor(event.stream().backendStream(), event.fence())) {
                    throw new UnsupportedOperationException("the " + c.policy().backend() + " backend declares "
                            + "MULTI_STREAM_CAPTURE but its stream could not wait for a capture event");
                }
                if (!inside) {
                    c.membership().join(target);
                }
                target.waited(c.self(), event.stream(), event.position());
            } finally {
                if (origin != c.self()) {
                    origin.lock().unlock();
                }
            }
        } catch (RuntimeException failure) {
            throw c.host().failed("waitFor on stream #" + c.id(), failure);
        } finally {
            c.guard().lock().unlock();
        }
    }

    /** Whether the work before {@code fence} (of this stream) finished; a closed stream's work has. */
    boolean eventComplete(Fence fence) {
        // any stream's capture counts here: a fence query of this stream may run on any thread
        c.policy()
                .checkHostSyncBesideCapture(c.host().anotherCaptureForbidsDeviceCalls(NO_STREAM), "isComplete", c.id());
        c.guard().lock().lock();
        try {
            return c.guard().closed() || c.backend().isComplete(fence);
        } finally {
            c.guard().lock().unlock();
        }
    }

    /** Waits, at most the wait timeout, for the work before {@code fence}; polls, so the lock is held briefly. */
    void awaitEvent(Fence fence) {
        long deadline = System.nanoTime() + c.waitTimeout().toNanos();
        long pause = 20_000;
        while (!eventComplete(fence)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new WaitTimeoutException(
                        "await: the work before an event of stream #" + c.id()
                                + " did not finish within " + c.waitTimeout()
                                + " (RuntimeOptions.waitTimeout); the device may "
                                + "be stuck",
                        c.waitTimeout());
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 1_000_000);
        }
    }
}
