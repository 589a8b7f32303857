package dev.graphrt.backend.wgpu;

import static dev.graphrt.backend.wgpu.WebGpuHeader.FWI_COMPLETED;
import static dev.graphrt.backend.wgpu.WebGpuHeader.FWI_FUTURE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.DriverException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's one {@code WGPUInstance} (see {@link WebGpuProcess} for why there is one and why it is never
 * released), the lock that serialises every native call made through it and its devices, and the waiting on
 * futures. Waits run in short slices, each under the lock, so a blocked stream never starves another thread for
 * longer than one slice. The instance is created with timed {@code wgpuInstanceWaitAny} when the implementation
 * offers it and falls back to polling otherwise.
 *
 * <p>Callbacks: the instance's own requests (adapters) go through its own {@link CallbackRegistry}, which lives as
 * long as the instance; each device has a registry of its own ({@link WgpuDevice}), closed with the device, so
 * nothing a runtime asked for outlives the runtime. The scratch structs below are shared by every device and are
 * only touched under {@link #lock}.
 *
 * <p>The first adapter request loads the driver; the libraries it loaded are then pinned for the JVM's life
 * ({@link DriverResidency}).
 */
final class WgpuInstance {
    private static final Logger LOG = LoggerFactory.getLogger(WgpuInstance.class);
    private static final long WAIT_SLICE_NS = 2_000_000L;

    final MemorySegment handle;
    final boolean timedWait;
    final ReentrantLock lock = new ReentrantLock();
    final CallbackRegistry callbacks = new CallbackRegistry();
    private final Arena arena = Arena.global(); // the instance lives as long as the JVM
    private final MemorySegment waitInfo = arena.allocate(WebGpuHeader.FUTURE_WAIT_INFO);
    private final MemorySegment callbackInfo = arena.allocate(WebGpuHeader.CALLBACK_INFO);
    private final SegmentAllocator futureSlot = SegmentAllocator.prefixAllocator(arena.allocate(WebGpuHeader.FUTURE));
    private final Set<Path> librariesBeforeDriver;
    private boolean driverPinned; // guarded by lock
    private boolean eglPrepared; // guarded by lock

    private WgpuInstance(MemorySegment handle, boolean timedWait, Set<Path> librariesBeforeDriver) {
        this.handle = handle;
        this.timedWait = timedWait;
        this.librariesBeforeDriver = librariesBeforeDriver;
    }

    /** Creates the instance; only {@link WebGpuProcess} calls this, once per JVM. */
    static WgpuInstance create() {
        Set<Path> before = DriverResidency.mappedLibraries();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment descriptor = a.allocate(WebGpuHeader.INSTANCE_DESCRIPTOR);
            descriptor.set(JAVA_INT, WebGpuHeader.INSTANCE_TIMED_WAIT_ENABLE, 1);
            descriptor.set(JAVA_LONG, WebGpuHeader.INSTANCE_TIMED_WAIT_MAX_COUNT, 1L);
            MemorySegment instance = Wgpu.createInstance(descriptor);
            if (instance.address() != 0) {
                return new WgpuInstance(instance, true, before);
            }
            LOG.debug("webgpu instance with timed WaitAny refused; waits will poll");
            instance = Wgpu.createInstance(MemorySegment.NULL);
            if (instance.address() == 0) {
                throw new DriverException("wgpuCreateInstance", 0, "NULL", "the implementation returned no instance");
            }
            return new WgpuInstance(instance, false, before);
        }
    }

    /** Scratch for a callback info struct; only while holding {@link #lock}. */
    MemorySegment callbackInfo() {
        return callbackInfo;
    }

    /**
     * Prepares {@link #callbackInfo()} for a one-shot request of {@code kind} of the instance itself; only while
     * holding {@link #lock}. A device's requests go through {@link WgpuDevice#prepare} instead.
     */
    Callbacks.Completion prepare(Callbacks.Kind kind) {
        return callbacks.prepare(callbackInfo, kind);
    }

    /** Allocator for a returned {@code WGPUFuture}; only while holding {@link #lock}. */
    SegmentAllocator futureSlot() {
        return futureSlot;
    }

    /**
     * Blocks until {@code completion} is done, waiting on {@code future} in slices. A completion whose device
     * closes meanwhile is failed by the device's registry, so this returns then too.
     */
    void await(Callbacks.Completion completion, long future) {
        await(completion, future, Long.MAX_VALUE);
    }

    /**
     * Like {@link #await(Callbacks.Completion, long)}, but gives up at {@code deadline} ({@link System#nanoTime}
     * scale). Returns whether the completion is done.
     */
    boolean await(Callbacks.Completion completion, long future, long deadline) {
        int idle = 0;
        while (!completion.done) {
            if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline >= 0) {
                return false;
            }
            lock.lock();
            try {
                if (!completion.done) {
                    waitOnce(future, timedWait ? WAIT_SLICE_NS : 0L);
                }
            } finally {
                lock.unlock();
            }
            if (!completion.done && !timedWait) {
                if (++idle < 64) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(20_000L);
                }
            }
        }
        return true;
    }

    /** Gives {@code future}'s callback a chance to run without blocking. Caller holds the lock. */
    void poll(long future) {
        waitOnce(future, 0L);
    }

    private void waitOnce(long future, long timeoutNs) {
        waitInfo.set(JAVA_LONG, FWI_FUTURE, future);
        waitInfo.set(JAVA_INT, FWI_COMPLETED, 0);
        int status = Wgpu.instanceWaitAny(handle, 1L, waitInfo, timeoutNs);
        if (status != WebGpuHeader.WAIT_STATUS_SUCCESS && status != WebGpuHeader.WAIT_STATUS_TIMED_OUT) {
            // an implementation that refuses this wait still fires the callback from ProcessEvents
            Wgpu.instanceProcessEvents(handle);
        }
    }

    /** Runs callbacks that are ready. Caller holds the lock. */
    void processEvents() {
        Wgpu.instanceProcessEvents(handle);
    }

    /**
     * Requests an adapter, trying each choice of {@code preference} in turn.
     *
     * @throws DriverException naming every attempt when none gave an adapter
     */
    Adapter requestAdapter(String preference, boolean completeEnvironment) {
        List<AdapterRequest> requests = AdapterRequest.forPreference(preference);
        List<String> failures = new ArrayList<>();
        for (AdapterRequest request : requests) {
            if (completeEnvironment && request.backendType() != WebGpuHeader.BACKEND_VULKAN) {
                prepareHeadlessEglOnce();
            }
            MemorySegment adapter = requestOne(request, failures);
            if (adapter != null) {
                keepDriverResident();
                return new Adapter(adapter, request, adapterInfo(adapter));
            }
        }
        throw new DriverException("wgpuInstanceRequestAdapter", 0, "NoAdapter", String.join("; ", failures));
    }

    private void prepareHeadlessEglOnce() {
        lock.lock();
        try {
            if (!eglPrepared) {
                eglPrepared = true;
                DriverEnvironment.prepareHeadlessEgl();
            }
        } finally {
            lock.unlock();
        }
    }

    /** After the first adapter, the driver is loaded: pins what it brought, once. */
    private void keepDriverResident() {
        lock.lock();
        try {
            if (!driverPinned) {
                driverPinned = true;
                DriverResidency.pinLoadedSince(librariesBeforeDriver);
            }
        } finally {
            lock.unlock();
        }
    }

    private MemorySegment requestOne(AdapterRequest request, List<String> failures) {
        Callbacks.Completion c;
        long future;
        lock.lock();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment options = a.allocate(WebGpuHeader.REQUEST_ADAPTER_OPTIONS);
            options.set(JAVA_INT, WebGpuHeader.RAO_FEATURE_LEVEL, request.featureLevel());
            options.set(JAVA_INT, WebGpuHeader.RAO_POWER_PREFERENCE, WebGpuHeader.POWER_PREFERENCE_HIGH_PERFORMANCE);
            options.set(JAVA_INT, WebGpuHeader.RAO_BACKEND_TYPE, request.backendType());
            c = prepare(Callbacks.Kind.REQUEST);
            future = Wgpu.instanceRequestAdapter(futureSlot, handle, options, callbackInfo);
        } finally {
            lock.unlock();
        }
        await(c, future);
        if (c.status == WebGpuHeader.STATUS_SUCCESS && c.object.address() != 0) {
            return c.object;
        }
        failures.add(request + ": " + (c.message.isBlank() ? "no adapter (status " + c.status + ")" : c.message));
        return null;
    }

    private AdapterInfo adapterInfo(MemorySegment adapter) {
        lock.lock();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment info = a.allocate(WebGpuHeader.ADAPTER_INFO);
            int status = Wgpu.adapterGetInfo(adapter, info);
            if (status != WebGpuHeader.STATUS_SUCCESS) {
                return new AdapterInfo("", "", "unknown adapter", "", 0, 0);
            }
            AdapterInfo result = new AdapterInfo(
                    Callbacks.string(info.asSlice(WebGpuHeader.AI_VENDOR, WebGpuHeader.STRING_VIEW.byteSize())),
                    Callbacks.string(info.asSlice(WebGpuHeader.AI_ARCHITECTURE, WebGpuHeader.STRING_VIEW.byteSize())),
                    Callbacks.string(info.asSlice(WebGpuHeader.AI_DEVICE, WebGpuHeader.STRING_VIEW.byteSize())),
                    Callbacks.string(info.asSlice(WebGpuHeader.AI_DESCRIPTION, WebGpuHeader.STRING_VIEW.byteSize())),
                    info.get(JAVA_INT, WebGpuHeader.AI_BACKEND_TYPE),
                    info.get(JAVA_INT, WebGpuHeader.AI_ADAPTER_TYPE));
            Wgpu.adapterInfoFreeMembers(info);
            return result;
        } finally {
            lock.unlock();
        }
    }

    /** An adapter handle and how it was found. */
    record Adapter(MemorySegment handle, AdapterRequest request, AdapterInfo info) {
        /** Releases the adapter; the caller holds the instance's lock. */
        void release() {
            Wgpu.adapterRelease(handle);
        }
    }

    /** What {@code wgpuAdapterGetInfo} said. */
    record AdapterInfo(
            String vendor, String architecture, String device, String description, int backendType, int adapterType) {
        boolean isCpu() {
            return adapterType == WebGpuHeader.ADAPTER_TYPE_CPU
                    || device.toLowerCase(Locale.ROOT).contains("llvmpipe")
                    || device.toLowerCase(Locale.ROOT).contains("lavapipe")
                    || device.toLowerCase(Locale.ROOT).contains("swiftshader");
        }

        String backendName() {
            return WebGpuHeader.backendTypeName(backendType);
        }

        @Override
        public String toString() {
            return device + " (" + WebGpuHeader.adapterTypeName(adapterType) + ", " + backendName()
                    + (description.isBlank() ? "" : ", " + description) + ")";
        }
    }

    /** One way of asking for an adapter. */
    record AdapterRequest(int backendType, int featureLevel) {
        /**
         * The attempts for a {@code wgpu.backend} option value: {@code auto} (Vulkan, then OpenGL ES in
         * compatibility mode, the headless fallback), {@code vulkan}, {@code gles}, {@code gl}, or {@code any}.
         */
        static List<AdapterRequest> forPreference(String preference) {
            String p = preference == null ? "auto" : preference.strip().toLowerCase(Locale.ROOT);
            return switch (p) {
                case "auto", "" ->
                    List.of(
                            new AdapterRequest(WebGpuHeader.BACKEND_VULKAN, WebGpuHeader.FEATURE_LEVEL_CORE),
                            new AdapterRequest(
                                    WebGpuHeader.BACKEND_OPENGLES, WebGpuHeader.FEATURE_LEVEL_COMPATIBILITY));
                case "vulkan" ->
                    List.of(new AdapterRequest(WebGpuHeader.BACKEND_VULKAN, WebGpuHeader.FEATURE_LEVEL_CORE));
                case "gles", "opengles" ->
                    List.of(new AdapterRequest(
                            WebGpuHeader.BACKEND_OPENGLES, WebGpuHeader.FEATURE_LEVEL_COMPATIBILITY));
                case "gl", "opengl" ->
                    List.of(new AdapterRequest(WebGpuHeader.BACKEND_OPENGL, WebGpuHeader.FEATURE_LEVEL_COMPATIBILITY));
                case "any" ->
                    List.of(
                            new AdapterRequest(WebGpuHeader.BACKEND_UNDEFINED, WebGpuHeader.FEATURE_LEVEL_CORE),
                            new AdapterRequest(
                                    WebGpuHeader.BACKEND_UNDEFINED, WebGpuHeader.FEATURE_LEVEL_COMPATIBILITY));
                default ->
                    throw new IllegalArgumentException(
                            "wgpu.backend must be auto, vulkan, gles, gl or any, was '" + preference + "'");
            };
        }

        @Override
        public String toString() {
            return WebGpuHeader.backendTypeName(backendType)
                    + (featureLevel == WebGpuHeader.FEATURE_LEVEL_COMPATIBILITY ? " (compatibility)" : "");
        }
    }
}
