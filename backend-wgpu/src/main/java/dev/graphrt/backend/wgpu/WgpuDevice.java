package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.LaunchLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One backend's use of a {@code WGPUDevice} and its queue ({@link NativeDevice}, which may serve several backends
 * in turn): the state every stream, the memory and the compiler of the backend share.
 *
 * <p><b>Threads.</b> Every native call on the device happens under {@link #lock} (the instance's), so Dawn never
 * sees two threads at once; waits release it between slices.
 *
 * <p><b>Errors.</b> Uncaptured errors arrive synchronously inside the call that caused them. A stream marks itself
 * {@linkplain #attribute current} while it calls into the device, so the error lands on that stream's queue and
 * surfaces at its next {@code synchronize}/{@code read}/{@code drainErrors}; memory and compiler calls use error
 * scopes instead and throw at once. An error that no stream caused (or a device loss) is delivered to every open
 * stream; with no stream open it waits for the next one that drains. None is lost.
 *
 * <p><b>Callbacks and teardown.</b> The backend routes its requests' callbacks through a {@link CallbackRegistry} of
 * its own; the instance is the process's and outlives it ({@link WebGpuProcess}). {@link #close()} refuses new
 * work, waits (bounded by {@link #CLOSE_WAIT} and {@link #CALLBACK_SETTLE}) until the queue is idle and every
 * callback it asked for has fired, then hands a healthy device to the process for the next backend, or releases
 * one that was lost, stayed busy or left errors nobody claimed (waiting for the device-lost callback the release
 * delivers), and only then closes the registry, failing whatever never answered. So no driver callback can reach
 * a receiver that is gone, and the device is never released or handed on under work the driver still runs.
 */
@SuppressWarnings("restricted") // raw native addresses and libraries are this class's job
final class WgpuDevice implements Callbacks.DeviceEvents {
    private static final Logger LOG = LoggerFactory.getLogger(WgpuDevice.class);
    /** How long {@link #close()} (and a stream's close) waits for the device's work to finish. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    /**
     * How long {@link #close()} then waits for callbacks still outstanding, and after the release for the
     * device-lost callback. Once the queue is idle, a callback that is still missing is a request another thread
     * has just made (it comes within microseconds) or one that will never come; two seconds covers the first.
     */
    static final Duration CALLBACK_SETTLE = Duration.ofSeconds(2);

    final WgpuInstance instance;
    final ReentrantLock lock;
    final WgpuInstance.Adapter adapter;
    final MemorySegment device;
    final MemorySegment queue;
    final Limits limits;
    final BindGroupCache bindGroups;
    final CallbackRegistry callbacks;
    private final NativeDevice kept;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment commandSlot = arena.allocate(ADDRESS);
    private MemorySegment scratch = arena.allocate(4096, 16);
    private final Set<WgpuStream> streams = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Throwable> unclaimed = new ConcurrentLinkedQueue<>();
    private WgpuStream current;
    private String currentCall = "webgpu";
    private long submitSerial;
    private int liveAllocations; // guarded by lock: a device is kept for the next backend only with none left
    private volatile DeviceLostException lost;
    private volatile boolean retiring; // close() began: no new work
    private volatile boolean closing; // the native device is released

    private WgpuDevice(WgpuInstance instance, NativeDevice kept, int bindGroupCacheSize) {
        this.instance = instance;
        this.lock = instance.lock;
        this.kept = kept;
        this.adapter = kept.adapter;
        this.device = kept.device;
        this.queue = kept.queue;
        this.limits = kept.limits;
        this.callbacks = new CallbackRegistry();
        this.bindGroups = new BindGroupCache(this, bindGroupCacheSize);
    }

    /**
     * A device for adapter choice {@code choice}: the one a closed backend kept ({@link NativeDevice} says why),
     * else a new one on a new adapter, with the adapter's own limits (the most it offers).
     */
    static WgpuDevice open(WgpuInstance instance, String choice, boolean completeEnvironment, int bindGroupCacheSize) {
        NativeDevice kept = WebGpuProcess.takeKept(choice);
        if (kept == null) {
            WgpuInstance.Adapter adapter = instance.requestAdapter(choice, completeEnvironment);
            try {
                kept = NativeDevice.open(instance, choice, adapter);
            } catch (RuntimeException e) {
                instance.lock.lock();
                try {
                    adapter.release();
                } finally {
                    instance.lock.unlock();
                }
                throw e;
            }
        }
        instance.lock.lock();
        try {
            WgpuDevice opened = new WgpuDevice(instance, kept, bindGroupCacheSize);
            kept.useBy(opened);
            return opened;
        } catch (RuntimeException | Error failure) {
            kept.discard(instance); // neither handed out nor kept: nothing else would ever release it
            throw failure;
        } finally {
            instance.lock.unlock();
        }
    }

    static void nullLabel(MemorySegment struct, long offset) {
        struct.set(ADDRESS, offset + WebGpuHeader.SV_DATA, MemorySegment.NULL);
        struct.set(JAVA_LONG, offset + WebGpuHeader.SV_LENGTH, WebGpuHeader.STRLEN);
    }

    // ---- error routing -------------------------------------------------------------------------------------

    /** Marks {@code stream} as the one calling into the device now (null: nobody). Caller holds the lock. */
    void attribute(WgpuStream stream, String call) {
        current = stream;
        currentCall = call;
    }

    /** Names the native call in progress, for errors it raises. Caller holds the lock. */
    void call(String call) {
        currentCall = call;
    }

    @Override
    public void uncapturedError(int type, String message) {
        String call = currentCall;
        Supplier<Throwable> error = () -> new DriverException(call, type, WebGpuHeader.errorTypeName(type), message);
        WgpuStream target = lock.isHeldByCurrentThread() ? current : null;
        if (target != null) {
            target.addError(error.get());
        } else {
            LOG.warn(
                    "webgpu {} error outside any stream, delivered to every stream: {}",
                    WebGpuHeader.errorTypeName(type),
                    message);
            broadcast(error);
        }
    }

    @Override
    public void deviceLost(int reason, String message) {
        if (closing
                && (reason == WebGpuHeader.DEVICE_LOST_DESTROYED
                        || reason == WebGpuHeader.DEVICE_LOST_INSTANCE_DROPPED)) {
            LOG.debug("webgpu device released: {}", message);
            return;
        }
        // A lost device is the WebGPU form of a sticky error: the runtime is lost, not the process (a new
        // device from the JVM's one instance works), so it is reported as DeviceLostException.
        Supplier<Throwable> error = () -> new DeviceLostException(
                "webgpu device lost (reason "
                        + reason + "): " + message
                        + "; the runtime is lost, every later call fails; close it and open a new "
                        + "runtime",
                "webgpu device",
                null);
        lost = (DeviceLostException) error.get();
        LOG.warn("webgpu device lost (reason {}): {}", reason, message);
        broadcast(error);
    }

    /** One exception per stream, so no two streams ever throw (and decorate) the same instance. */
    private void broadcast(Supplier<Throwable> error) {
        if (streams.isEmpty()) {
            unclaimed.add(error.get());
        }
        for (WgpuStream s : streams) {
            s.addError(error.get());
        }
    }

    /** Errors nobody has claimed yet; the first stream that drains takes them. */
    void claimUnattributed(List<Throwable> into) {
        for (Throwable t; (t = unclaimed.poll()) != null; ) {
            into.add(t);
        }
    }

    /** Fails fast once the device is lost or closed. */
    void checkUsable() {
        DeviceLostException l = lost;
        if (l != null) {
            throw new DeviceLostException("webgpu: the device was lost earlier: " + l.getMessage(), l.operation(), l);
        }
        if (retiring) {
            throw new IllegalStateException("the wgpu backend is closed");
        }
    }

    /** Neither lost nor closed. */
    boolean isUsable() {
        return lost == null && !retiring;
    }

    void register(WgpuStream stream) {
        streams.add(stream);
    }

    void unregister(WgpuStream stream) {
        streams.remove(stream);
    }

    Set<WgpuStream> streams() {
        return streams;
    }

    /**
     * Refuses a grid this device cannot dispatch before anything is encoded: WebGPU would only report it
     * asynchronously, at the submit, as a validation error of the whole submission.
     */
    void checkGrid(LaunchDims dims) {
        int max = limits.maxWorkgroupsPerDimension();
        if (dims.gridX() > max || dims.gridY() > max || dims.gridZ() > max) {
            throw new IllegalArgumentException("dims: grid " + dims.gridX() + "x" + dims.gridY() + "x" + dims.gridZ()
                    + " exceeds this device's " + max + " workgroups per dimension (maxComputeWorkgroupsPerDimension);"
                    + " spread the launch over gridY or use larger workgroups");
        }
    }

    // ---- submission and host copies ------------------------------------------------------------------------

    /** Finishes {@code encoder} and submits it; releases both. Caller holds the lock. */
    void submit(MemorySegment encoder) {
        currentCall = "wgpuCommandEncoderFinish";
        MemorySegment commands = Wgpu.commandEncoderFinish(encoder);
        Wgpu.commandEncoderRelease(encoder);
        currentCall = "wgpuQueueSubmit";
        commandSlot.set(ADDRESS, 0, commands);
        Wgpu.queueSubmit(queue, 1L, commandSlot);
        Wgpu.commandBufferRelease(commands);
        submitSerial++;
    }

    /** Counts an allocation made ({@code +1}) or freed ({@code -1}). Caller holds the lock. */
    void countAllocation(int delta) {
        liveAllocations += delta;
    }

    /** How many submissions the queue has seen; a fence with the same serial covers the same work. */
    long submitSerial() {
        return submitSerial;
    }

    /**
     * Prepares the instance's callback info for a one-shot request of {@code kind} of this device, routed through
     * the device's own registry. Caller holds the lock.
     */
    Callbacks.Completion prepare(Callbacks.Kind kind) {
        return callbacks.prepare(instance.callbackInfo(), kind);
    }

    /** A work-done future for everything submitted so far. Caller holds the lock. */
    WgpuFence fence() {
        Callbacks.Completion c = prepare(Callbacks.Kind.WORK_DONE);
        long future = Wgpu.queueOnSubmittedWorkDone(instance.futureSlot(), queue, instance.callbackInfo());
        return new WgpuFence(future, c, submitSerial);
    }

    /**
     * Copies {@code src} to {@code buffer} at {@code offset} through the queue: ordered after everything already
     * submitted and before everything submitted later. WebGPU copies whole 4-byte words; a ragged tail of 1-3
     * bytes is merged with the device's current word (read back first) so the bytes after it keep their value.
     * Caller holds the lock and has submitted any open encoder whose work must come first.
     */
    void writeBuffer(MemorySegment buffer, long offset, MemorySegment src) {
        long length = src.byteSize();
        long whole = length & ~3L;
        long tail = length - whole;
        MemorySegment staging = scratch(whole + (tail > 0 ? 4 : 0));
        if (whole > 0) {
            MemorySegment.copy(src, 0, staging, 0, whole);
            currentCall = "wgpuQueueWriteBuffer";
            Wgpu.queueWriteBuffer(queue, buffer, offset, staging, whole);
        }
        if (tail > 0) {
            MemorySegment word = staging.asSlice(whole, 4);
            readInto(buffer, offset + whole, word);
            MemorySegment.copy(src, whole, word, 0, tail);
            currentCall = "wgpuQueueWriteBuffer";
            Wgpu.queueWriteBuffer(queue, buffer, offset + whole, word, 4);
        }
    }

    /**
     * Copies {@code dst.byteSize()} bytes at {@code offset} of {@code buffer} into {@code dst} through a temporary
     * staging buffer, waiting for the queue. Caller holds the lock (it is released while waiting for the map).
     */
    void readInto(MemorySegment buffer, long offset, MemorySegment dst) {
        long size = (dst.byteSize() + 3) & ~3L;
        MemorySegment staging =
                createBuffer(WebGpuHeader.BUFFER_USAGE_MAP_READ | WebGpuHeader.BUFFER_USAGE_COPY_DST, size);
        try {
            MemorySegment encoder = Wgpu.deviceCreateCommandEncoder(device);
            Wgpu.commandEncoderCopyBufferToBuffer(encoder, buffer, offset, staging, 0, size);
            submit(encoder);
            mapAndCopy(staging, size, dst);
        } finally {
            Wgpu.bufferDestroy(staging);
            Wgpu.bufferRelease(staging);
        }
    }

    /** Maps {@code staging} (already holding the bytes once submitted work finishes) and copies them out. */
    void mapAndCopy(MemorySegment staging, long size, MemorySegment dst) {
        currentCall = "wgpuBufferMapAsync";
        Callbacks.Completion c = prepare(Callbacks.Kind.MAP);
        long future = Wgpu.bufferMapAsync(
                instance.futureSlot(), staging, WebGpuHeader.MAP_MODE_READ, 0, size, instance.callbackInfo());
        awaitUnlocked(c, future);
        if (!c.succeeded()) {
            throw new DriverException("wgpuBufferMapAsync", c.status, "MapFailed", c.message);
        }
        MemorySegment mapped = Wgpu.bufferGetConstMappedRange(staging, 0, size).reinterpret(size);
        MemorySegment.copy(mapped, 0, dst, 0, dst.byteSize());
        Wgpu.bufferUnmap(staging);
    }

    /** Waits for {@code fence} with the lock released. */
    void await(WgpuFence fence) {
        awaitUnlocked(fence.completion(), fence.future());
    }

    /**
     * Waits for {@code fence} until {@code bound} has passed; the caller does not hold the lock. Returns whether the
     * fence completed.
     */
    boolean await(WgpuFence fence, Duration bound) {
        return instance.await(fence.completion(), fence.future(), System.nanoTime() + bound.toNanos());
    }

    /**
     * Waits with every hold of the lock released, so other streams go on meanwhile, then takes the lock back
     * and restores which stream the device attributes errors to.
     */
    private void awaitUnlocked(Callbacks.Completion c, long future) {
        int holds = lock.getHoldCount();
        WgpuStream stream = current;
        String call = currentCall;
        for (int i = 0; i < holds; i++) {
            lock.unlock();
        }
        try {
            instance.await(c, future);
        } finally {
            for (int i = 0; i < holds; i++) {
                lock.lock();
            }
            if (holds > 0) {
                current = stream;
                currentCall = call;
            }
        }
    }

    /** A new buffer; {@link DriverException} if the device refuses it. Caller holds the lock. */
    MemorySegment createBuffer(long usage, long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = a.allocate(WebGpuHeader.BUFFER_DESCRIPTOR);
            nullLabel(d, WebGpuHeader.BD_LABEL);
            d.set(JAVA_LONG, WebGpuHeader.BD_USAGE, usage);
            d.set(JAVA_LONG, WebGpuHeader.BD_SIZE, size);
            currentCall = "wgpuDeviceCreateBuffer";
            MemorySegment buffer = Wgpu.deviceCreateBuffer(device, d);
            if (buffer.address() == 0) {
                throw new DriverException("wgpuDeviceCreateBuffer", 0, "NULL", size + " bytes");
            }
            return buffer;
        }
    }

    /** Reusable native scratch of at least {@code bytes}. Caller holds the lock. */
    private MemorySegment scratch(long bytes) {
        if (scratch.byteSize() < bytes) {
            long size = Math.max(bytes, scratch.byteSize() * 2);
            scratch = arena.allocate(size, 16);
        }
        return scratch;
    }

    // ---- error scopes --------------------------------------------------------------------------------------

    /** Pushes one error scope per filter. Caller holds the lock. */
    void pushErrorScopes(int... filters) {
        for (int f : filters) {
            Wgpu.devicePushErrorScope(device, f);
        }
    }

    /** Pops {@code count} scopes and returns the errors they caught, innermost first. Caller holds the lock. */
    List<ScopedError> popErrorScopes(int count) {
        List<ScopedError> errors = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Callbacks.Completion c = prepare(Callbacks.Kind.POP_ERROR_SCOPE);
            long future = Wgpu.devicePopErrorScope(instance.futureSlot(), device, instance.callbackInfo());
            instance.await(c, future);
            if (c.status == WebGpuHeader.STATUS_SUCCESS && c.errorType != WebGpuHeader.ERROR_TYPE_NO_ERROR) {
                errors.add(new ScopedError(c.errorType, c.message));
            }
        }
        return errors;
    }

    /** An error an error scope caught. */
    record ScopedError(int type, String message) {
        DriverException toException(String call) {
            return new DriverException(call, type, WebGpuHeader.errorTypeName(type), message);
        }
    }

    // ---- teardown ------------------------------------------------------------------------------------------

    /**
     * Ends this backend's use of the device: keeps it for the next backend if it went idle with nothing outstanding,
     * else releases it. Streams, allocations, bind groups and kernels were released before, so a kept device holds
     * nothing of this backend; the instance stays (it is the process's). Each wait below is bounded ({@link #CLOSE_WAIT}, {@link #CALLBACK_SETTLE}): a device that does not
     * go idle, or a callback that never comes, is logged and closing goes on, since close() must complete.
     */
    void close() {
        WgpuFence idle = null;
        lock.lock();
        try {
            if (retiring) {
                return;
            }
            retiring = true;
            if (lost == null) {
                idle = fence();
            }
        } finally {
            lock.unlock();
        }
        boolean quiet = idle != null && await(idle, CLOSE_WAIT);
        if (idle != null && !quiet) {
            LOG.warn(
                    "webgpu device {} still busy after {} ms; releasing it anyway",
                    adapter.info().device(),
                    CLOSE_WAIT.toMillis());
        }
        if (!settle(() -> callbacks.outstanding() == 0)) {
            quiet = false;
            LOG.warn(
                    "webgpu device {}: callbacks {} still outstanding after {} ms; they are cancelled",
                    adapter.info().device(),
                    callbacks.outstandingKinds(),
                    CALLBACK_SETTLE.toMillis());
        }
        boolean keep;
        lock.lock();
        try {
            closing = true;
            bindGroups.clear();
            // only a device that went idle, holding no buffer of this backend, with nothing outstanding and no error
            // nobody claimed, serves again
            keep = quiet && lost == null && unclaimed.isEmpty() && liveAllocations == 0 && WebGpuProcess.keep(kept);
            if (keep) {
                kept.useBy(null);
            } else {
                kept.release(instance);
            }
        } finally {
            lock.unlock();
        }
        if (!keep) {
            if (!settle(kept::lostDelivered)) {
                LOG.debug(
                        "webgpu device {}: no device-lost callback within {} ms of its release",
                        adapter.info().device(),
                        CALLBACK_SETTLE.toMillis());
            }
            kept.closeEvents();
        }
        callbacks.close();
        arena.close();
    }

    /**
     * Lets the instance deliver callbacks until {@code condition} holds or {@link #CALLBACK_SETTLE} has passed;
     * the caller does not hold the lock. Returns whether the condition holds.
     */
    private boolean settle(BooleanSupplier condition) {
        long deadline = System.nanoTime() + CALLBACK_SETTLE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            lock.lock();
            try {
                instance.processEvents();
            } finally {
                lock.unlock();
            }
            if (!condition.getAsBoolean()) {
                LockSupport.parkNanos(200_000L);
            }
        }
        return true;
    }

    /** The native device this backend uses, for tests that check which one a backend got. */
    NativeDevice nativeDevice() {
        return kept;
    }

    boolean isClosed() {
        return closing;
    }

    /** The device limits the backend relies on. */
    record Limits(
            long minStorageOffsetAlignment,
            long maxStorageBindingSize,
            long maxBufferSize,
            int maxStorageBuffersPerStage,
            int maxWorkgroupsPerDimension,
            int maxInvocationsPerWorkgroup,
            int maxWorkgroupSizeX,
            int maxWorkgroupSizeY,
            int maxWorkgroupSizeZ) {
        /** The launch limits the core checks every launch against. */
        LaunchLimits launchLimits() {
            return new LaunchLimits(
                    maxWorkgroupsPerDimension,
                    maxWorkgroupsPerDimension,
                    maxWorkgroupsPerDimension,
                    maxWorkgroupSizeX,
                    maxWorkgroupSizeY,
                    maxWorkgroupSizeZ,
                    maxInvocationsPerWorkgroup);
        }

        static Limits read(MemorySegment device) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment l = a.allocate(WebGpuHeader.LIMITS_BYTES, 16);
                if (Wgpu.deviceGetLimits(device, l) != WebGpuHeader.STATUS_SUCCESS) {
                    throw new DriverException("wgpuDeviceGetLimits", 0, "Error", "no limits");
                }
                return new Limits(
                        Integer.toUnsignedLong(l.get(JAVA_INT, WebGpuHeader.LIM_MIN_STORAGE_OFFSET_ALIGNMENT)),
                        l.get(JAVA_LONG, WebGpuHeader.LIM_MAX_STORAGE_BINDING_SIZE),
                        l.get(JAVA_LONG, WebGpuHeader.LIM_MAX_BUFFER_SIZE),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_STORAGE_BUFFERS_PER_STAGE),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_WORKGROUPS_PER_DIMENSION),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_INVOCATIONS_PER_WORKGROUP),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_WORKGROUP_SIZE_X),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_WORKGROUP_SIZE_Y),
                        l.get(JAVA_INT, WebGpuHeader.LIM_MAX_WORKGROUP_SIZE_Z));
            }
        }
    }
}
