package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.WaitTimeoutException;
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

    private final CaptureCalls capture;
    private final StreamContext c;

    StreamClosing(StreamContext c, CaptureCalls capture) {
        this.c = c;
        this.capture = capture;
    }

    void close() {
        if (!c.guard().closed() && c.membership().isMember()) {
            // Its driver stream is part of another stream's capture: closed to its user now, torn down when that
            // capture ends (its work is then joined back or the capture cancelled).
            deferClose();
            return;
        }
        boolean open = !c.guard().closed() && !c.guard().closeDeferred();
        if (open
                && c.policy().abandonsOnDeferredClose(c.lifecycle().current())
                && c.host().anotherCaptureForbidsDeviceCalls(c.id())) {
            // Its own capture ends now: deferred, it could never end (endCapture refuses a closed stream), and
            // two streams closed while both record would each wait for the other forever.
            abandonCapture("the stream is closing", true);
        }
        if (!c.guard().closed() && c.host().anotherCaptureForbidsDeviceCalls(c.id())) {
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
        boolean first = c.guard().deferClose();
        c.host().closeLater(c.id(), c.self()::close);
        if (first) {
            c.host().captureEnded(); // the capture may have ended since the check: then this close runs now
        }
    }

    private void closeNow() {
        boolean abandoned = false;
        c.guard().lock().lock();
        try {
            if (c.guard().closed()) {
                return;
            }
            List<RuntimeException> failures = new ArrayList<>();
            abandoned = abandonCapture("the stream is closing", false);
            Duration drainBound = c.waitTimeout();
            try {
                c.memory().awaitAll("its work before closing");
                c.backend().synchronize();
            } catch (WaitTimeoutException stuck) {
                failures.add(stuck);
                drainBound = Duration.ofNanos(1);
            } catch (RuntimeException failure) {
                if (c.host().failed("close of stream #" + c.id(), failure) instanceof DeviceLostException) {
                    drainBound = Duration.ofNanos(1);
                }
                LOG.warn("stream #{}: outstanding work failed while closing: {}", c.id(), failure.toString());
            }
            attempt(failures, c.checked()::forget);
            failures.addAll(c.memory().releaseEverything(drainBound));
            c.guard().markClosed();
            attempt(failures, c.backend()::close);
            c.host().streamClosed(c.id());
            c.memory().takeFailures().ifPresent(failures::add);
            if (c.host().isLost()) {
                failures.forEach(f -> LOG.warn("stream #{} of a lost runtime closed: {}", c.id(), f.toString()));
                return;
            }
            Failures.throwFirst(failures);
        } finally {
            c.guard().lock().unlock();
            if (abandoned) {
                c.host().captureEnded(); // after this stream's lock: it may close deferred streams
            }
        }
    }

    /**
     * The abort path; returns whether a capture was abandoned. With {@code announce} the runtime hears at once that
     * the capture ended (which may close deferred streams, taking their locks); without it the caller does so after
     * releasing this stream's lock, so that no other stream's lock is ever taken under it. Never throws for it.
     */
    boolean abandonCapture(String why, boolean announce) {
        c.guard().lock().lock();
        try {
            CaptureState was = c.lifecycle().current();
            if (c.guard().closed() || !c.policy().windowOpen(was)) {
                return false;
            }
            c.membership().joinBackForAbort();
            RuntimeException failure = c.lifecycle()
                    .abort(new IllegalStateException("stream #" + c.id() + " left its capture window: " + why));
            c.membership().dissolveGroup();
            capture.windowEnded();
            LOG.warn(
                    "stream #{} closed during {}: the capture was cancelled ({})",
                    c.id(),
                    was,
                    failure.getSuppressed().length == 0 ? "cleanly" : "with suppressed errors");
        } finally {
            c.guard().lock().unlock();
        }
        if (announce) {
            c.host().captureEnded();
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
        c.memory().queueRelease(graph);
        if (c.guard().lock().isHeldByCurrentThread() || !c.guard().lock().tryLock()) {
            return;
        }
        try {
            if (!c.guard().closed() && !c.host().isLost()) {
                c.memory().flushPoint();
            }
        } finally {
            c.guard().lock().unlock();
        }
    }

    /**
     * Returns finished releases to the pools so trim() can give them back; never blocks, never while recording.
     * A busy stream is skipped (a Java kernel may call trim() while the host holds the lock waiting for it); its
     * own next flush point reclaims.
     */
    void reclaim() {
        if (!c.guard().lock().tryLock()) {
            return;
        }
        try {
            if (!c.guard().closed()) {
                c.memory().flushPoint();
            }
        } finally {
            c.guard().lock().unlock();
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
