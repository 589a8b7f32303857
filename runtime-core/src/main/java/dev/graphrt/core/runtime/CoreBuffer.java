package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.core.memory.HoldCount;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.DeviceSlice;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A user buffer: a pooled slice plus the requested size, and a count of who holds the storage. The user's
 * handle is one hold; every graph whose recording touched the buffer, and every stream epoch whose work used
 * it, is another. {@link #close()} ends the handle at once and never blocks or locks a stream (a Java kernel
 * may close a buffer while the host waits); the slice goes back to the pool when the last hold goes.
 */
final class CoreBuffer implements Buffer, Retainable {
    private final RuntimeScope scope;
    private final long id;
    private volatile PoolSlice slice;
    private volatile DeviceSlice storage;
    private final long byteSize;
    /** Checked mode only: the last launches that used it, newest first (for an overrun's message). */
    private final @Nullable ArrayDeque<String> launches;

    private final AtomicBoolean closed = new AtomicBoolean();
    private final HoldCount holds = new HoldCount();
    /** The epoch or recording that last took a hold: a stream skips the hold when it already has one. */
    private volatile long stamp;
    /** A view's owner (a graph pool's intermediate, held for as long as the view lives); null for a real buffer. */
    private volatile @Nullable CoreBuffer owner;
    /** Bytes counted as awaiting release when the user closed it while held; 0 otherwise. */
    private volatile long awaitingRelease;

    CoreBuffer(RuntimeScope scope, long id, PoolSlice slice, long byteSize) {
        this.scope = scope;
        this.id = id;
        this.slice = slice;
        this.byteSize = byteSize;
        this.storage = slice.storage();
        this.launches = null;
        this.owner = null;
    }

    /**
     * A view of {@code owner}'s storage, which the caller retained for it: a temporary of a pooled capture placed in
     * an intermediate of the pool. Its last hold lets the owner go instead of freeing anything.
     */
    CoreBuffer(RuntimeScope scope, long id, CoreBuffer owner, long byteSize) {
        this.scope = scope;
        this.id = id;
        this.slice = owner.slice;
        this.byteSize = byteSize;
        this.storage = owner.storage.prefix(byteSize);
        this.launches = null;
        this.owner = owner;
    }

    /** How many holds it has now (its user's handle counts until closed). */
    int holdCount() {
        return holds.count();
    }

    /** A checked buffer: {@code slice} has guards on both sides of {@code storage}. */
    CoreBuffer(RuntimeScope scope, long id, PoolSlice slice, DeviceSlice storage, long byteSize) {
        this.scope = scope;
        this.id = id;
        this.slice = slice;
        this.byteSize = byteSize;
        this.storage = storage;
        this.launches = new ArrayDeque<>();
        this.owner = null;
    }

    /** The device storage operations use: the whole slice, or in checked mode the part between the guards. */
    DeviceSlice storage() {
        return storage;
    }

    boolean checked() {
        return launches != null;
    }

    /** Checked mode: notes a launch that used this buffer (the last four are kept). */
    void noteLaunch(String label) {
        ArrayDeque<String> noted = launches;
        if (noted == null) {
            return; // not a checked-mode buffer: nothing is noted
        }
        synchronized (noted) {
            noted.addFirst(label);
            if (noted.size() > 4) {
                noted.removeLast();
            }
        }
    }

    List<String> lastLaunches() {
        if (launches == null) {
            return List.of();
        }
        synchronized (launches) {
            return List.copyOf(launches);
        }
    }

    /** Whether its storage is still held (not yet back in the pool). */
    boolean alive() {
        return holds.held();
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    /** True once the user closed it, or once its runtime is closed (the handle can no longer be used). */
    @Override
    public boolean isClosed() {
        return closed.get() || scope.isClosed();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (holds.release(this)) {
                freeStorage();
            } else {
                awaitingRelease = retainedBytes();
                scope.closedWhileHeld(awaitingRelease);
            }
        }
    }

    @Override
    public boolean retain() {
        return holds.retain();
    }

    @Override
    public void release() {
        if (holds.release(this)) {
            freeStorage();
        }
    }

    /**
     * Makes a view its own buffer on {@code fresh} (a slice of at least its size) and lets its owner go: a pooled
     * capture that was refused or cancelled left this view open, and an open buffer must never share another graph's
     * intermediate. Only for a view that no work uses any more (the window that lent it was undone); its contents
     * were never defined by any run.
     */
    synchronized void privatize(PoolSlice fresh) {
        CoreBuffer lent = owner;
        if (lent == null) {
            throw new IllegalStateException(this + " is not a view");
        }
        slice = fresh;
        storage = fresh.storage();
        owner = null;
        lent.release();
    }

    private void freeStorage() {
        long counted = awaitingRelease;
        if (counted > 0) {
            awaitingRelease = 0;
            scope.releasedAfterClose(counted);
        }
        if (owner != null) {
            owner.release();
        } else {
            scope.free(slice);
        }
    }

    /** A view owns no storage (its owner's bytes count once, there). */
    @Override
    public long retainedBytes() {
        return owner != null ? 0 : slice.capacity();
    }

    /**
     * Takes a hold for the epoch or recording {@code by} unless it already has one; false when the storage is
     * already gone (the buffer was closed and every holder let go), so the caller must refuse the operation.
     * Callers hold their stream's lock; two streams racing on the stamp only take an extra hold each.
     */
    boolean holdFor(long by, Consumer<Retainable> holder) {
        if (stamp == by) {
            return true;
        }
        if (!retain()) {
            return false;
        }
        stamp = by;
        holder.accept(this);
        return true;
    }

    PoolSlice slice() {
        return slice;
    }

    /** The runtime scope it belongs to: a stream refuses buffers of another runtime. */
    RuntimeScope scope() {
        return scope;
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "buffer #" + id + " (" + byteSize + " B)";
    }
}
