package dev.graphrt.core.memory;

import dev.graphrt.spi.DeviceSlice;
import org.jspecify.annotations.Nullable;

/**
 * One slice of pooled device memory and the reasons it may not be handed out again: in use by a buffer
 * or cache entry, held by a priming pass, pinned by live graphs, or reserved by the capture window that
 * touched it. Mutated only under the {@link MemoryManager}'s lock.
 */
public final class PoolSlice {
    private final DeviceSlice storage;
    private final long sizeKey;
    private final boolean persistent;
    private final Object page;
    boolean inUse;
    boolean primedHeld;
    int pins;

    @Nullable
    CaptureMemorySession window;

    PoolSlice(DeviceSlice storage, long sizeKey, boolean persistent, Object page) {
        this.storage = storage;
        this.sizeKey = sizeKey;
        this.persistent = persistent;
        this.page = page;
    }

    /** The device storage a backend sees (its length is the rounded capacity). */
    public DeviceSlice storage() {
        return storage;
    }

    /** Capacity in bytes. */
    public long capacity() {
        return storage.length();
    }

    long sizeKey() {
        return sizeKey;
    }

    public boolean persistent() {
        return persistent;
    }

    Object page() {
        return page;
    }

    /** Free to hand to {@code session} (null: an allocation outside every window). */
    boolean takeableBy(@Nullable CaptureMemorySession session) {
        return !inUse && !primedHeld && pins == 0 && (window == null || window == session);
    }

    /** Free, and no window or graph will want it back: safe to return to the device. */
    boolean trimmable() {
        return !inUse && !primedHeld && pins == 0 && window == null;
    }

    public int pins() {
        return pins;
    }

    @Override
    public String toString() {
        return (persistent ? "persistent" : "dynamic") + " slice of " + capacity() + " B at +" + storage.offset()
                + (inUse ? " in-use" : "") + (primedHeld ? " primed" : "") + (pins > 0 ? " pins=" + pins : "");
    }
}
