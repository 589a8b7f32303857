package dev.graphrt.driver;

import dev.graphrt.spi.Fence;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The fences of one stream, made of recycled driver events ({@code CUevent}, {@code hipEvent_t}).
 *
 * <p>Why a pool: a fence is recorded for every deferred free and every graph release, and creating a
 * driver event each time costs far more than recording one. Why the fences are objects that remember
 * their completion: the core may ask about a fence again after its event was recycled for a newer
 * fence; a completed fence must stay completed. Events of one stream complete in recording order, so
 * when one fence is seen complete every older fence is complete too and its event returns to the pool.
 *
 * <p>Thread-safe. The blocking wait happens outside the lock. Not for use while the stream records: the
 * core never records, queries or awaits a fence then (a host query would invalidate a hardware capture).
 *
 * @param <E> the driver's event handle type
 */
public final class EventFences<E> {

    /** The driver operations on one stream's events. Each throws the backend's exception on failure. */
    public interface Events<E> {
        /** A new event (timing disabled where the driver allows). */
        E create();

        /** Records {@code event} at the current end of the owning stream. */
        void record(E event);

        /** Whether the work before {@code event} finished; never blocks. */
        boolean query(E event);

        /** Blocks until the work before {@code event} finished. */
        void synchronize(E event);

        /** Releases {@code event}; called once per created event, from {@link #close()}. */
        void destroy(E event);
    }

    private final Events<E> events;
    private final ArrayDeque<E> free = new ArrayDeque<>();
    private final ArrayDeque<EventFence<E>> outstanding = new ArrayDeque<>();
    private final List<E> created = new ArrayList<>();
    private boolean closed;

    public EventFences(Events<E> events) {
        this.events = Objects.requireNonNull(events, "events");
    }

    /** Records a fence at the current end of the stream, reusing an event whose fence completed. */
    public synchronized Fence record() {
        ensureOpen();
        E event = free.pollFirst();
        if (event == null) {
            reclaimCompleted();
            event = free.pollFirst();
        }
        if (event == null) {
            event = events.create();
            created.add(event);
        }
        try {
            events.record(event);
        } catch (RuntimeException e) {
            free.addFirst(event);
            throw e;
        }
        EventFence<E> fence = new EventFence<>(this, event);
        outstanding.addLast(fence);
        return fence;
    }

    /** Whether the work before {@code fence} finished; never blocks. */
    public synchronized boolean isComplete(Fence fence) {
        EventFence<E> own = own(fence);
        if (own.complete) {
            return true;
        }
        ensureOpen();
        if (!events.query(own.event)) {
            return false;
        }
        completeThrough(own);
        return true;
    }

    /**
     * Runs {@code action} with {@code fence}'s event unless its work is known to be done (or the stream closed,
     * which it does only after its work finished); under this object's lock, so the event cannot be recycled and
     * recorded again meanwhile.
     */
    public synchronized void ifIncomplete(Fence fence, Consumer<E> action) {
        EventFence<E> own = own(fence);
        if (own.complete || closed) {
            return;
        }
        action.accept(own.event);
    }

    /** Blocks until the work before {@code fence} finished. */
    public void await(Fence fence) {
        E event;
        EventFence<E> own;
        synchronized (this) {
            own = own(fence);
            if (own.complete) {
                return;
            }
            ensureOpen();
            event = own.event;
        }
        // Outside the lock: a concurrent caller may recycle the event meanwhile, which can only make this
        // wait longer (on a later record of the same event), never shorter.
        events.synchronize(event);
        synchronized (this) {
            if (!own.complete) {
                completeThrough(own);
            }
        }
    }

    /** Marks every fence complete after the whole stream was synchronised; all events return to the pool. */
    public synchronized void allComplete() {
        while (!outstanding.isEmpty()) {
            recycle(outstanding.pollFirst());
        }
    }

    /** Events created so far (pooled or in use); for diagnostics and tests. */
    public synchronized int eventCount() {
        return created.size();
    }

    /** Fences recorded and not yet seen complete. */
    public synchronized int outstandingCount() {
        return outstanding.size();
    }

    /**
     * Destroys every event. Outstanding fences read as complete afterwards: the owner closes this only
     * after synchronising the stream. The first failure is rethrown after all events were released.
     */
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (EventFence<E> fence : outstanding) {
            fence.complete = true;
        }
        outstanding.clear();
        free.clear();
        RuntimeException first = null;
        for (E event : created) {
            try {
                events.destroy(event);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        created.clear();
        if (first != null) {
            throw first;
        }
    }

    private void reclaimCompleted() {
        EventFence<E> head;
        while ((head = outstanding.peekFirst()) != null && events.query(head.event)) {
            recycle(outstanding.pollFirst());
        }
    }

    /** {@code fence} and every fence recorded before it are complete. */
    private void completeThrough(EventFence<E> fence) {
        while (!outstanding.isEmpty()) {
            EventFence<E> head = outstanding.pollFirst();
            recycle(head);
            if (head == fence) {
                return;
            }
        }
        fence.complete = true;
    }

    private void recycle(EventFence<E> fence) {
        fence.complete = true;
        free.addLast(fence.event);
    }

    @SuppressWarnings("unchecked")
    private EventFence<E> own(Fence fence) {
        Objects.requireNonNull(fence, "fence");
        if (fence instanceof EventFence<?> candidate && candidate.owner == this) {
            return (EventFence<E>) candidate;
        }
        throw new IllegalArgumentException("fence " + fence + " was not recorded on this stream");
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the stream's fences are closed");
        }
    }

    private static final class EventFence<E> implements Fence {
        private final EventFences<E> owner;
        private final E event;
        private boolean complete; // guarded by owner

        private EventFence(EventFences<E> owner, E event) {
            this.owner = owner;
            this.event = event;
        }

        @Override
        public String toString() {
            return "EventFence[" + event + "]";
        }
    }
}
