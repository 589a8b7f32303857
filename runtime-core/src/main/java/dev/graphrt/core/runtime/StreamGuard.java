package dev.graphrt.core.runtime;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The skeleton every public call of a stream runs through, written once: take the stream's lock (and, while the
 * stream takes part in another stream's capture, that origin's lock after it), check that the stream is open and
 * that the calling thread may use it, run the call, turn a failure into the runtime's view of it (a sticky device
 * error loses the runtime), and let the locks go.
 */
final class StreamGuard {
    private final long streamId;
    private final StreamHost host;
    private final Membership membership;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean closed;
    private volatile boolean closeDeferred;

    StreamGuard(long streamId, StreamHost host, Membership membership) {
        this.streamId = streamId;
        this.host = host;
        this.membership = membership;
    }

    ReentrantLock lock() {
        return lock;
    }

    boolean closed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    boolean closeDeferred() {
        return closeDeferred;
    }

    /** Marks the stream closed to its user, to be torn down later; false when it already was. */
    boolean deferClose() {
        if (closeDeferred) {
            return false;
        }
        closeDeferred = true;
        return true;
    }

    /** Open to its user (not closed, not awaiting a deferred close) and its runtime usable. */
    void checkOpen(String operation) {
        host.checkOpen(operation); // a closed runtime is named first: it closed the stream, not its user
        if (closed || closeDeferred) {
            throw new IllegalStateException(operation + ": stream #" + streamId + " is closed");
        }
    }

    /** Open, and the calling thread may use it in the current capture state (the policy's thread rule). */
    void checkUsable(String operation) {
        checkOpen(operation);
        membership.recording().checkCaller(operation);
    }

    /**
     * Under this stream's lock: checks it is usable for {@code operation}, runs {@code body}. {@code subject} (the
     * kernel, the graph; or null) names what the operation was about when it fails; the message is built only then,
     * so the call itself allocates no text.
     */
    <T> T call(String operation, @Nullable Object subject, Supplier<T> body) {
        lock.lock();
        try {
            checkUsable(operation);
            return body.get();
        } catch (RuntimeException raised) {
            throw host.failed(describe(operation, subject), raised);
        } finally {
            lock.unlock();
        }
    }

    void run(String operation, @Nullable Object subject, Runnable body) {
        lock.lock();
        try {
            checkUsable(operation);
            body.run();
        } catch (RuntimeException raised) {
            throw host.failed(describe(operation, subject), raised);
        } finally {
            lock.unlock();
        }
    }

    /** "launch of kernel add_one on stream #3": what a failure of the call is reported as. */
    String describe(String operation, @Nullable Object subject) {
        return operation + (subject == null ? "" : " of " + subject) + " on stream #" + streamId;
    }

    /**
     * As {@link #call}, also under the lock of the capture's origin while this stream takes part in another
     * stream's capture: {@code body} gets that origin, or null when the stream is on its own.
     */
    <T> T callJoined(String operation, @Nullable Object subject, Function<@Nullable StreamPeer, T> body) {
        @Nullable StreamPeer origin = enterJoined(operation, subject);
        try {
            return body.apply(origin);
        } catch (RuntimeException raised) {
            throw failed(operation, subject, raised);
        } finally {
            exitJoined(origin);
        }
    }

    /**
     * The first half of {@link #callJoined}, for the launch path, which must not allocate a body: takes both locks
     * and checks the stream is usable (on failure it lets go of both and throws as {@code callJoined} does), and
     * returns the origin. The caller runs its work, passes a failure through {@link #failed}, and calls
     * {@link #exitJoined} in a {@code finally}.
     */
    @Nullable
    StreamPeer enterJoined(String operation, @Nullable Object subject) {
        lock.lock();
        @Nullable StreamPeer origin = membership.lockOrigin();
        try {
            checkUsable(operation);
            return origin;
        } catch (RuntimeException raised) {
            RuntimeException failure = failed(operation, subject, raised);
            exitJoined(origin);
            throw failure;
        }
    }

    /** Lets go of what {@link #enterJoined} took. */
    void exitJoined(@Nullable StreamPeer origin) {
        membership.unlockOrigin(origin);
        lock.unlock();
    }

    /** What a failure of {@code operation} on this stream is rethrown as (the host's reaction included). */
    RuntimeException failed(String operation, @Nullable Object subject, RuntimeException raised) {
        return host.failed(describe(operation, subject), raised);
    }

    /** As {@link #callJoined}, for a body that returns nothing. */
    void runJoined(String operation, @Nullable Object subject, Consumer<@Nullable StreamPeer> body) {
        callJoined(operation, subject, origin -> {
            body.accept(origin);
            return Boolean.TRUE;
        });
    }
}
