package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.DriverException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One native {@code WGPUDevice} with its adapter and queue, used by one backend at a time and possibly by several
 * in turn. Opening a WebGPU device on a discrete GPU creates a GPU context in the driver (about 100 ms on an
 * H200, serialised across processes); a backend that closes healthy therefore hands its device to
 * {@link WebGpuProcess}, and the next backend on the same adapter choice takes it instead of opening one, as the
 * CUDA runtime keeps its primary context while contexts come and go above it.
 *
 * <p>The device's own callbacks (loss and uncaptured errors) are bound when it is created, so they route through
 * a registry of the device's ({@link #events}) to a relay that forwards to the backend using the device now, and
 * only logs while nobody does. Each backend's one-shot requests go through a registry of its own, which closes
 * with the backend. A device that was lost, or that a backend left with work or callbacks outstanding, is never
 * kept: it is released ({@link #release()}).
 */
@SuppressWarnings("restricted") // raw native addresses are this class's job
final class NativeDevice {
    private static final Logger LOG = LoggerFactory.getLogger(NativeDevice.class);

    final String choice;
    final WgpuInstance.Adapter adapter;
    final MemorySegment device;
    final MemorySegment queue;
    final WgpuDevice.Limits limits;
    private final Relay relay;
    private final CallbackRegistry events;

    private NativeDevice(
            String choice, WgpuInstance.Adapter adapter, MemorySegment device, Relay relay, CallbackRegistry events) {
        this.choice = choice;
        this.adapter = adapter;
        this.device = device;
        this.relay = relay;
        this.events = events;
        this.queue = Wgpu.deviceGetQueue(device);
        this.limits = WgpuDevice.Limits.read(device);
    }

    /**
     * Opens a device on {@code adapter} with the adapter's own limits (the most it offers); on failure the adapter
     * stays the caller's. {@code choice} is the adapter preference it was requested with, the key a kept device is
     * found by.
     */
    static NativeDevice open(WgpuInstance instance, String choice, WgpuInstance.Adapter adapter) {
        Relay relay = new Relay();
        CallbackRegistry events = new CallbackRegistry();
        long key = events.registerDevice(relay);
        Callbacks.Completion c;
        long future;
        instance.lock.lock();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment adapterLimits = a.allocate(WebGpuHeader.LIMITS_BYTES, 16);
            boolean haveLimits = Wgpu.adapterGetLimits(adapter.handle(), adapterLimits) == WebGpuHeader.STATUS_SUCCESS;
            MemorySegment d = a.allocate(WebGpuHeader.DEVICE_DESCRIPTOR);
            WgpuDevice.nullLabel(d, WebGpuHeader.DD_LABEL);
            WgpuDevice.nullLabel(d, WebGpuHeader.DD_QUEUE_LABEL);
            d.set(ADDRESS, WebGpuHeader.DD_REQUIRED_LIMITS, haveLimits ? adapterLimits : MemorySegment.NULL);
            d.set(JAVA_INT, WebGpuHeader.DD_LOST_MODE, WebGpuHeader.CALLBACK_MODE_ALLOW_SPONTANEOUS);
            d.set(ADDRESS, WebGpuHeader.DD_LOST_CALLBACK, Callbacks.deviceLostStub());
            d.set(ADDRESS, WebGpuHeader.DD_LOST_USERDATA1, MemorySegment.ofAddress(key));
            d.set(ADDRESS, WebGpuHeader.DD_LOST_USERDATA2, MemorySegment.ofAddress(events.id()));
            d.set(ADDRESS, WebGpuHeader.DD_ERROR_CALLBACK, Callbacks.uncapturedErrorStub());
            d.set(ADDRESS, WebGpuHeader.DD_ERROR_USERDATA1, MemorySegment.ofAddress(key));
            d.set(ADDRESS, WebGpuHeader.DD_ERROR_USERDATA2, MemorySegment.ofAddress(events.id()));
            c = events.prepare(instance.callbackInfo(), Callbacks.Kind.REQUEST);
            future = Wgpu.adapterRequestDevice(instance.futureSlot(), adapter.handle(), d, instance.callbackInfo());
        } finally {
            instance.lock.unlock();
        }
        instance.await(c, future);
        if (!c.succeeded() || c.object.address() == 0) {
            events.close();
            throw new DriverException("wgpuAdapterRequestDevice", c.status, "RequestDeviceFailed", c.message);
        }
        instance.lock.lock();
        try {
            return new NativeDevice(choice, adapter, c.object, relay, events);
        } finally {
            instance.lock.unlock();
        }
    }

    /** Routes the device's loss and uncaptured errors to {@code user} (null: to the log, while kept unused). */
    void useBy(Callbacks.DeviceEvents user) {
        relay.target = user;
    }

    /** Whether the device was lost while nobody used it; such a device is released, never handed out. */
    boolean lostWhileKept() {
        return relay.lostUnused;
    }

    /** Whether the device-lost callback came (after a release, the last callback a device gets). */
    boolean lostDelivered() {
        return relay.lostDelivered;
    }

    /**
     * Releases the queue, the device and the adapter. Caller holds the instance's lock; the device-lost callback
     * the release delivers still reaches {@link #useBy its user}. Call {@link #closeEvents()} once it came.
     */
    void release(WgpuInstance instance) {
        Wgpu.queueRelease(queue);
        Wgpu.deviceDestroy(device);
        Wgpu.deviceRelease(device);
        adapter.release();
        instance.processEvents();
    }

    /**
     * Releases the device at once and stops routing its callbacks, for a device nobody uses: one lost while kept,
     * or one whose backend failed to open on it. Caller holds the instance's lock.
     */
    void discard(WgpuInstance instance) {
        release(instance);
        closeEvents();
    }

    /** Stops routing the device's callbacks: after {@link #release}, once its loss was delivered or given up on. */
    void closeEvents() {
        events.close();
    }

    /** Forwards the device's callbacks to the backend using it, or logs them while it is kept unused. */
    private static final class Relay implements Callbacks.DeviceEvents {
        volatile Callbacks.DeviceEvents target;
        volatile boolean lostUnused;
        volatile boolean lostDelivered;

        @Override
        public void uncapturedError(int type, String message) {
            Callbacks.DeviceEvents t = target;
            if (t != null) {
                t.uncapturedError(type, message);
            } else {
                LOG.warn("webgpu {} error on a device no backend uses: {}", WebGpuHeader.errorTypeName(type), message);
            }
        }

        @Override
        public void deviceLost(int reason, String message) {
            lostDelivered = true;
            Callbacks.DeviceEvents t = target;
            if (t != null) {
                t.deviceLost(reason, message);
            } else {
                lostUnused = true;
                LOG.debug("webgpu device no backend uses was lost (reason {}): {}", reason, message);
            }
        }
    }
}
