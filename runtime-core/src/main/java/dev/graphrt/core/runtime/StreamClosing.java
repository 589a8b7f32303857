package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.spi.BackendStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closing a stream, and letting go of what it no longer uses: a close cancels an open capture, waits (bounded) for
 * the stream's work, releases every graph and everything deferred, and closes the backend stream; it always
 * completes, whatever fails or times out on the way, and throws what failed at the end (the first as primary). While
 * another stream's capture forbids device calls, or while the stream takes part in another stream's capture, the
 * close is deferred: closed to its user at once, torn down when that capture ends.
 */
final class StreamClosing {
    private static final Logger LOG = LoggerFactory.getLogger(StreamClosing.class);

    private final StreamPeer self;
    private final long id;
    private final StreamHost host;
    private final OperationPolicy policy;
    private final BackendStream backend;
    private final StreamGuard guard;
    private final Membership membership;
    private final StreamMemory memory;
    private final CaptureLifecycle lifecycle;
    private final CheckedWork checked;
    private final CaptureCalls capture;
    private final Duration waitTimeout;

    StreamClosing(StreamPeer self, StreamHost host, StreamGuard guard, Membership membership, CheckedWork checked,
                  CaptureCalls capture) {
        this.self = self;
        this.id = self.id();
        this.host = host;
        this.policy = host.policy();
        this.backend = self.backendStream();
        this.guard = guard;
        this.membership = membership;
        this.memory = self.memory();
        this.lifecycle = self.lifecycle();
        this.checked = checked;
        this.capture = capture;
        this.waitTimeout = host.options().waitTimeout();
    }

    void close() {
        if (!guard.closed() && membership.isMember()) {
            // Its driver stream is part of another stream's capture: closed to its user now, torn down when that
            // capture ends (its work is then joined back or the capture cancelled).
            deferClose();
            return;
        }
        if (!guard.closed() && !guard.closeDeferred() && policy.abandonsOnDeferredClose(lifecycle.current())
                && host.anotherCaptureForbidsDeviceCalls(id)) {
            // Its own capture ends now: deferred, it could never end (endCapture refuses a closed stream), and
            // two streams closed while both record would each wait for the other forever.
            abandonCapture("the stream is closing", true);
        }
        if (!guard.closed() && host.anotherCaptureForbidsDeviceCalls(id)) {
            // Waiting for this stream's work or freeing now would be refused by the driver and would invalidate
            // the other capture: the stream is closed to its user at once and torn down when that capture ends.
            deferClose();
            return;
        }
        closeNow();
    }

    /**
     * Closed to its user now, torn down when no capture needs it any more. Registered again at every try: the
     * runtime runs a deferred close whenever some capture ends, and a stream still joined to another capture then
     * defers again instead of being forgotten (it used to stay open, with its worker, until the runtime closed).
     */
    private void deferClose() {
        boolean first = guard.deferClose();
        host.closeLater(id, self::close);
        if (first) {
            host.captureEnded(); // the capture may have ended since the check: then this close runs now
        }
    }

    private void closeNow() {
        boolean abandoned = false;
        guard.lock().lock();
        try {
            if (guard.closed()) {
                return;
            }
            List<RuntimeException> failures = new ArrayList<>();
            abandoned = abandonCapture("the stream is closing", false);
            Duration drainBound = waitTimeout;
            try {
                memory.awaitAll("its work before closing");
                backend.synchronize();
            } catch (WaitTimeoutException stuck) {
                failures.add(stuck);
                drainBound = Duration.ofNanos(1);
            } catch (RuntimeException failure) {
                if (host.failed("close of stream #" + id, failure) instanceof DeviceLostException) {
                    drainBound = Duration.ofNanos(1);
                }
                LOG.warn("stream #{}: outstanding work failed while closing: {}", id, failure.toString());
            }
            attempt(failures, checked::forget);
            failures.addAll(memory.releaseEverything(drainBound));
            guard.markClosed();
            attempt(failures, backend::close);
            host.streamClosed(id);
            memory.takeFailures().ifPresent(failures::add);
            if (host.isLost()) {
                failures.forEach(f -> LOG.warn("stream #{} of a lost runtime closed: {}", id, f.toString()));
                return;
            }
            Failures.throwFirst(failures);
        } finally {
            guard.lock().unlock();
            if (abandoned) {
                host.captureEnded(); // after this stream's lock: it may close deferred streams
            }
        }
    }

    /**
     * The abort path; returns whether a capture was abandoned. With {@code announce} the runtime hears at once that
     * the capture ended (which may close deferred streams, taking their locks); without it the caller does so after
     * releasing this stream's lock, so that no other stream's lock is ever taken under it. Never throws for it.
     */
    boolean abandonCapture(String why, boolean announce) {
        guard.lock().lock();
        try {
            CaptureState was = lifecycle.current();
            if (guard.closed() || !policy.windowOpen(was)) {
                return false;
            }
            membership.joinBackForAbort();
            RuntimeException failure = lifecycle.abort(new IllegalStateException("stream #" + id
                    + " left its capture window: " + why));
            membership.dissolveGroup();
            capture.windowEnded();
            LOG.warn("stream #{} closed during {}: the capture was cancelled ({})", id, was,
                    failure.getSuppressed().length == 0 ? "cleanly" : "with suppressed errors");
        } finally {
            guard.lock().unlock();
        }
        if (announce) {
            host.captureEnded();
        }
        return true;
    }

    /**
     * A graph's last holder let go: its destroy, unpin and buffer releases run after a fence shows its replays
     * finished. Never blocks on a busy stream: when another thread holds the lock (a host waiting while a Java
     * kernel closes the graph), or this thread is inside a release, the graph is queued for the next flush
     * point. A no-op once the stream is closed (closing released every graph).
     */
    void unused(CoreGraph graph) {
        memory.queueRelease(graph);
        if (guard.lock().isHeldByCurrentThread() || !guard.lock().tryLock()) {
            return;
        }
        try {
            if (!guard.closed() && !host.isLost()) {
                memory.flushPoint();
            }
        } finally {
            guard.lock().unlock();
        }
    }

    /**
     * Returns finished releases to the pools so trim() can give them back; never blocks, never while recording.
     * A busy stream is skipped (a Java kernel may call trim() while the host holds the lock waiting for it); its
     * own next flush point reclaims.
     */
    void reclaim() {
        if (!guard.lock().tryLock()) {
            return;
        }
        try {
            if (!guard.closed()) {
                memory.flushPoint();
            }
        } finally {
            guard.lock().unlock();
        }
    }

    private static void attempt(List<RuntimeException> failures, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException failure) {
            failures.add(failure);
        }
    }
}
