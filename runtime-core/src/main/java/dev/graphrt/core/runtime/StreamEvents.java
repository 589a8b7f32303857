package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.spi.Fence;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A stream's events: recording one (a fence; inside a capture a point of the graph, which makes the capture span
 * streams), waiting for one (on the device where the backend can, else a bounded host wait; for an event of a
 * capture, joining that capture; for an event of a warm-up, joining that warm-up), and asking whether one is done.
 */
final class StreamEvents {
    /** No stream: {@code anotherCaptureForbidsDeviceCalls(NO_STREAM)} asks about every stream's capture. */
    private static final long NO_STREAM = -1;

    private final StreamPeer self;
    private final StreamHost host;
    private final OperationPolicy policy;
    private final StreamGuard guard;
    private final Membership membership;
    private final Duration waitTimeout;

    StreamEvents(StreamPeer self, StreamHost host, StreamGuard guard, Membership membership) {
        this.self = self;
        this.host = host;
        this.policy = host.policy();
        this.guard = guard;
        this.membership = membership;
        this.waitTimeout = host.options().waitTimeout();
    }

    StreamEvent record() {
        return guard.callJoined("record", null, origin -> {
            CaptureState state = membership.state();
            policy.checkEvent(state, "record() on stream #" + self.id());
            if (!policy.eventJoinsCapture(state)) {
                return new CoreEvent(self, self.backendStream().recordFence(),
                        membership.warmupOf(policy.joinsWarmup(self.lifecycle().current())));
            }
            CaptureGroup group = origin != null ? membership.group() : membership.ownGroup();
            return new CoreEvent(self, membership.captureEventFence(self), group, group.operations(self));
        });
    }

    /**
     * Orders this stream's later work after {@code event}'s: on the device where the backend can, else by a host
     * wait bounded by the wait timeout. The other stream's backend is only asked for its (thread-safe) fence, never
     * under its lock, so two streams waiting for each other cannot deadlock here. An event recorded inside a
     * capture makes this stream join that capture (fork), or, for a stream already in it, orders it (join).
     */
    void waitFor(StreamEvent event) {
        host.checkOpen("waitFor");
        CoreEvent other = checkEvent(event);
        if (other.group() != null) {
            waitInCapture(other);
            return;
        }
        boolean hostWait = guard.call("waitFor", null, () -> {
            CaptureState state = membership.state();
            policy.checkEvent(state, "waitFor() on stream #" + self.id());
            policy.checkWaitForOutsideEvent(state, other.toString(), self.id());
            StreamPeer source = other.stream();
            boolean ordered = source == self || source.isClosed()
                    || self.backendStream().waitFor(source.backendStream(), other.fence());
            membership.joinWarmup(other.warmup());
            if (!ordered) {
                policy.checkHostSyncBesideCapture(host.anotherCaptureForbidsDeviceCalls(self.id()), "waitFor",
                        self.id());
            }
            return !ordered; // stream order already; a closed stream's work is done; or the device waits
        });
        if (hostWait) {
            other.stream().awaitEvent(other.fence()); // a host wait, outside this stream's lock
        }
    }

    /** An event of a stream of this runtime; another runtime's is refused, naming the argument. */
    private CoreEvent checkEvent(StreamEvent event) {
        java.util.Objects.requireNonNull(event, "event");
        if (!(event instanceof CoreEvent core) || core.stream().scope() != host.scope()) {
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
        CaptureGroup target = event.group();
        StreamPeer origin = target.origin();
        guard.lock().lock();
        try {
            guard.checkOpen("waitFor");
            boolean inside = membership.group() == target || origin == self;
            if (!inside && (membership.group() != null
                    || !policy.mayJoinAnotherCapture(self.lifecycle().current()))) {
                throw new CaptureRejectedException("waitFor: stream #" + self.id() + " is in " + membership.state()
                        + " of another capture and cannot join stream #" + origin.id() + "'s; a stream joins a "
                        + "capture from NO_CAPTURE");
            }
            if (origin != self) {
                origin.lock().lock();
            }
            try {
                if (target.ended()) {
                    throw new IllegalStateException("waitFor: " + event + " belongs to a capture that has ended");
                }
                origin.lifecycle().checkCaller("waitFor on stream #" + self.id());
                policy.checkEvent(CaptureState.CAPTURE, "waitFor() on stream #" + self.id());
                if (event.stream() != self && event.fence() != null
                        && !self.backendStream().waitFor(event.stream().backendStream(), event.fence())) {
                    throw new UnsupportedOperationException("the " + policy.backend() + " backend declares "
                            + "MULTI_STREAM_CAPTURE but its stream could not wait for a capture event");
                }
                if (!inside) {
                    membership.join(target);
                }
                target.waited(self, event.stream(), event.position());
            } finally {
                if (origin != self) {
                    origin.lock().unlock();
                }
            }
        } catch (RuntimeException failure) {
            throw host.failed("waitFor on stream #" + self.id(), failure);
        } finally {
            guard.lock().unlock();
        }
    }

    /** Whether the work before {@code fence} (of this stream) finished; a closed stream's work has. */
    boolean eventComplete(Fence fence) {
        policy.checkHostSyncBesideCapture(host.anotherCaptureForbidsDeviceCalls(NO_STREAM), "isComplete", self.id());
        guard.lock().lock();
        try {
            return guard.closed() || self.backendStream().isComplete(fence);
        } finally {
            guard.lock().unlock();
        }
    }

    /** Waits, at most the wait timeout, for the work before {@code fence}; polls, so the lock is held briefly. */
    void awaitEvent(Fence fence) {
        long deadline = System.nanoTime() + waitTimeout.toNanos();
        long pause = 20_000;
        while (!eventComplete(fence)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new WaitTimeoutException("await: the work before an event of stream #" + self.id()
                        + " did not finish within " + waitTimeout + " (RuntimeOptions.waitTimeout); the device may "
                        + "be stuck", waitTimeout);
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 1_000_000);
        }
    }
}
