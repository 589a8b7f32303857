package dev.graphrt.backend.wgpu;

import static dev.graphrt.backend.wgpu.WebGpuHeader.CBI_CALLBACK;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CBI_MODE;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CBI_USERDATA1;
import static dev.graphrt.backend.wgpu.WebGpuHeader.CBI_USERDATA2;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java receivers of one owner's native callbacks: the one-shot completions still in flight and the event
 * receivers of a device. The owner is one {@link WgpuDevice} (its requests, fences, maps and device events), or the
 * process's {@link WgpuInstance} for its own adapter requests. A callback finds its receiver through the two
 * userdata words it carries: {@code userdata2} names this registry (routed by {@link WebGpuProcess}),
 * {@code userdata1} the entry in it.
 *
 * <p>A device's registry lives and dies with the device, while the instance they share lives on. {@link #close()}
 * fails every completion still outstanding (a waiter sees it done, not succeeded, with a message saying why) and
 * removes it, so nothing a runtime asked for outlives the runtime; a callback the driver delivers later (a
 * cancellation, say) finds no registry and is dropped.
 */
final class CallbackRegistry implements AutoCloseable {
    /** The status a completion gets when its owner closes before the callback came. */
    static final int STATUS_CLOSED = -1;

    private final long id;
    private final ConcurrentHashMap<Long, Callbacks.Completion> pending = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Callbacks.DeviceEvents> devices = new ConcurrentHashMap<>();
    private final AtomicLong keys = new AtomicLong(1);
    private volatile boolean closed;

    CallbackRegistry() {
        this.id = WebGpuProcess.route(this);
    }

    /** The number {@code userdata2} carries to name this registry. */
    long id() {
        return id;
    }

    /**
     * Fills {@code info} (a {@link WebGpuHeader#CALLBACK_INFO}) for a new one-shot request of {@code kind} and
     * returns the completion its callback will fill.
     *
     * @throws IllegalStateException once the registry is closed
     */
    Callbacks.Completion prepare(MemorySegment info, Callbacks.Kind kind) {
        if (closed) {
            throw new IllegalStateException("the webgpu device is closed");
        }
        Callbacks.Completion completion = new Callbacks.Completion(kind);
        long key = keys.getAndIncrement();
        pending.put(key, completion);
        info.fill((byte) 0);
        info.set(JAVA_INT, CBI_MODE, WebGpuHeader.CALLBACK_MODE_ALLOW_PROCESS_EVENTS);
        info.set(ADDRESS, CBI_CALLBACK, Callbacks.stub(kind));
        info.set(ADDRESS, CBI_USERDATA1, MemorySegment.ofAddress(key));
        info.set(ADDRESS, CBI_USERDATA2, MemorySegment.ofAddress(id));
        return completion;
    }

    /** Registers a device's event receiver; the key goes into {@code userdata1} of both device callbacks. */
    long registerDevice(Callbacks.DeviceEvents events) {
        long key = keys.getAndIncrement();
        devices.put(key, events);
        return key;
    }

    void unregisterDevice(long key) {
        devices.remove(key);
    }

    /** Removes and returns the completion under {@code key}, or {@code null} if there is none. */
    Callbacks.Completion take(long key) {
        return pending.remove(key);
    }

    /** The device receiver under {@code key}, or {@code null}. */
    Callbacks.DeviceEvents device(long key) {
        return devices.get(key);
    }

    /** Completions whose callback has not come yet. */
    int outstanding() {
        return pending.size();
    }

    /** The kinds of the completions still outstanding, for diagnostics. */
    List<Callbacks.Kind> outstandingKinds() {
        return pending.values().stream().map(c -> c.kind).toList();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Fails and removes every outstanding completion, forgets the devices and stops routing callbacks here. Call
     * after the device was released: callbacks the release itself delivers still reach their receivers.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Long key : pending.keySet()) {
            Callbacks.Completion c = pending.remove(key);
            if (c != null) {
                c.fail(STATUS_CLOSED, "the webgpu device was closed before this request completed");
            }
        }
        devices.clear();
        WebGpuProcess.unroute(id);
    }

    @Override
    public String toString() {
        return "CallbackRegistry[" + id + ", " + pending.size() + " outstanding, " + devices.size() + " devices]";
    }
}
