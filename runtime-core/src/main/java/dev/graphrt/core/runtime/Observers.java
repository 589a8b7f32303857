package dev.graphrt.core.runtime;

import dev.graphrt.api.RuntimeObserver;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's {@link RuntimeObserver}s. Reads are lock-free (hot paths check {@link #active()} first, so a runtime
 * without observers pays one volatile read); an observer that throws is logged and the others are still told.
 */
final class Observers {
    private static final Logger LOG = LoggerFactory.getLogger(Observers.class);

    private final List<RuntimeObserver> observers = new CopyOnWriteArrayList<>();
    private volatile boolean active;

    synchronized RuntimeObserver.Subscription add(RuntimeObserver observer) {
        Objects.requireNonNull(observer, "observer");
        observers.add(observer);
        active = true;
        AtomicBoolean open = new AtomicBoolean(true);
        return () -> {
            if (open.compareAndSet(true, false)) {
                remove(observer);
            }
        };
    }

    private synchronized void remove(RuntimeObserver observer) {
        observers.remove(observer);
        active = !observers.isEmpty();
    }

    synchronized void clear() {
        observers.clear();
        active = false;
    }

    boolean active() {
        return active;
    }

    void captured(long stream, long graph, int nodes, Duration took) {
        tell(o -> o.captured(stream, graph, nodes, took));
    }

    void replayed(long stream, long graph) {
        tell(o -> o.replayed(stream, graph));
    }

    void replayCompleted(long stream, long graph, Duration sinceEnqueue) {
        tell(o -> o.replayCompleted(stream, graph, sinceEnqueue));
    }

    void poolGrew(String pool, long requested, long reserved) {
        tell(o -> o.poolGrew(pool, requested, reserved));
    }

    private void tell(Consumer<RuntimeObserver> call) {
        if (!active) {
            return;
        }
        for (RuntimeObserver observer : observers) {
            try {
                call.accept(observer);
            } catch (RuntimeException failure) {
                LOG.warn("runtime observer {} failed; the operation goes on", observer, failure);
            }
        }
    }
}
