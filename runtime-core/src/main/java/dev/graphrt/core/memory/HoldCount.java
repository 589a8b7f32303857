package dev.graphrt.core.memory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many holders keep a resource alive (its user's handle is the first). Once the last hold went, a new hold
 * is refused: the resource's storage may already be someone else's, so a late user must fail as closed rather
 * than revive it. Lock-free: releasing a hold never waits.
 */
public final class HoldCount {
    private final AtomicInteger holds = new AtomicInteger(1);

    /** Takes one hold; false when the last one already went. */
    public boolean retain() {
        for (int now = holds.get(); now > 0; now = holds.get()) {
            if (holds.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Lets one hold of {@code what} go; true when it was the last, so the caller frees the resource. */
    public boolean release(Object what) {
        int left = holds.decrementAndGet();
        if (left < 0) {
            throw new IllegalStateException(what + " released more often than retained");
        }
        return left == 0;
    }

    /** How many holds there are now (a snapshot). */
    public int count() {
        return holds.get();
    }

    /** Whether any hold is left. */
    public boolean held() {
        return holds.get() > 0;
    }
}
