package dev.graphrt.core.runtime;

import dev.graphrt.api.GraphPool;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A graph pool: the one stream its graphs belong to (bound by the first capture into it), whose order is what makes
 * sharing memory between them safe, and its intermediates: buffers a capture of the pool allocated and its user
 * closed inside the step, which the graph that recorded them holds. The pool holds none of them; a later capture of
 * the pool borrows one (retaining it) for a temporary of its own, as a view.
 */
final class CorePool implements GraphPool {
    private final long id;
    private final RuntimeScope scope;
    private final List<CoreBuffer> intermediates = new ArrayList<>();
    /** The id of the stream the pool belongs to (bound by its first capture); 0 until then. */
    private long stream;

    private volatile boolean closed;

    CorePool(long id, RuntimeScope scope) {
        this.id = id;
        this.scope = scope;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public boolean isClosed() {
        return closed || scope.isClosed();
    }

    @Override
    public void close() {
        closed = true;
    }

    RuntimeScope scope() {
        return scope;
    }

    /** Binds the pool to stream {@code candidate} on its first capture; refuses a closed pool and any other stream. */
    synchronized void bind(long candidate) {
        if (isClosed()) {
            throw new IllegalStateException("options.pool: " + this + " is closed");
        }
        if (stream == 0) {
            stream = candidate;
        } else if (stream != candidate) {
            throw new IllegalArgumentException("options.pool: " + this + " belongs to stream #" + stream
                    + ", and its graphs share memory because they replay in that stream's order; capture on stream #"
                    + stream + " or use another pool for stream #" + candidate);
        }
    }

    /** A closed temporary of a graph of this pool, still held by that graph: later captures may borrow it. */
    synchronized void addIntermediate(CoreBuffer buffer) {
        intermediates.add(buffer);
    }

    /**
     * The smallest live intermediate of at least {@code bytes} that neither {@code borrowed} (this window's current
     * borrowings) nor {@code excluded} (what graphs the window replays hold) names, retained for the caller; null
     * when none fits. Dead ones are dropped.
     */
    synchronized @Nullable CoreBuffer borrow(
            long bytes, Map<CoreBuffer, CoreBuffer> borrowed, Map<? extends Object, Boolean> excluded) {
        CoreBuffer best = null;
        for (Iterator<CoreBuffer> it = intermediates.iterator(); it.hasNext(); ) {
            CoreBuffer candidate = it.next();
            if (!candidate.alive()) {
                it.remove();
            } else if (candidate.storage().length() >= bytes
                    && !borrowed.containsKey(candidate)
                    && !excluded.containsKey(candidate)
                    && (best == null
                            || candidate.storage().length() < best.storage().length())) {
                best = candidate;
            }
        }
        return best != null && best.retain() ? best : null;
    }

    /** Bytes of the live intermediates (each once); dead ones are dropped. */
    synchronized long sharedBytes() {
        long bytes = 0;
        for (Iterator<CoreBuffer> it = intermediates.iterator(); it.hasNext(); ) {
            CoreBuffer buffer = it.next();
            if (buffer.alive()) {
                bytes += buffer.retainedBytes();
            } else {
                it.remove();
            }
        }
        return bytes;
    }

    /** Whether the pool can matter any more: open, or holding live intermediates. */
    synchronized boolean inUse() {
        return !isClosed() || sharedBytes() > 0;
    }

    @Override
    public String toString() {
        return "graph pool #" + id;
    }
}
