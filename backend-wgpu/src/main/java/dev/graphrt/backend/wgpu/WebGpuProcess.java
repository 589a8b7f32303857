package dev.graphrt.backend.wgpu;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this JVM holds of WebGPU for its whole life: the one {@link WgpuInstance}, the devices kept between
 * backends, and the routing table from a callback's {@code userdata2} to the {@link CallbackRegistry} it names.
 * Backends (runtimes) come and go; each takes a kept device or requests an adapter and a device from this
 * instance, but the instance itself is never released.
 *
 * <p><b>Why the instance is never released.</b> Releasing a Dawn instance destroys its {@code VkInstance}, and the
 * Vulkan loader then unloads the driver (the ICD) from the process. NVIDIA's driver keeps worker threads that can
 * still be starting or running at that moment: on an H200 a JVM that opened and closed runtimes one after another
 * died with SIGSEGV in glibc's thread start, the program counter inside the unmapped driver (issue 13 §2). Loading
 * the driver anew per runtime also used up glibc's static TLS after about 15 loads. One instance for the process
 * loads the driver once and keeps it (and, through {@link DriverResidency}, pins the libraries it brought), so no
 * driver thread can outlive its code.
 *
 * <p><b>Kept devices.</b> A backend that closes with its device healthy hands the device here, one per adapter
 * choice, and the next backend with that choice takes it ({@link NativeDevice} says why). A kept device is never
 * released either: like the instance, it lives as long as the JVM.
 *
 * <p><b>Static state.</b> This class and the upcall stubs of {@link Callbacks} are the backend's only static
 * mutable state (besides the library itself, opened once by {@link NativeLibrary}). The stubs are static because
 * an upcall stub must outlive every native call that may still fire it; what they route through must therefore be
 * reachable without an object, which is why the routing table lives here and not in an instance. Everything else
 * (devices, their registries, streams, caches) belongs to one backend and goes away with it.
 */
final class WebGpuProcess {
    private static final Object LOCK = new Object();
    private static final ConcurrentHashMap<Long, CallbackRegistry> ROUTES = new ConcurrentHashMap<>();
    private static final AtomicLong REGISTRY_IDS = new AtomicLong(1);
    private static WgpuInstance instance; // guarded by LOCK; once set, never released
    private static final Map<String, NativeDevice> KEPT = new HashMap<>(); // guarded by LOCK

    private WebGpuProcess() {}

    /**
     * The process's instance, created on first use. The library must be loaded ({@link NativeLibrary#load}). The
     * first caller also prepares the driver environment ({@link DriverEnvironment#prepareVulkan}) when
     * {@code completeEnvironment} holds: the Vulkan loader reads it once, when the instance first enumerates
     * adapters, so the first runtime's choice holds for the JVM.
     */
    static WgpuInstance instance(Path library, boolean completeEnvironment) {
        synchronized (LOCK) {
            if (instance == null) {
                if (completeEnvironment) {
                    DriverEnvironment.prepareVulkan(library);
                }
                instance = WgpuInstance.create();
            }
            return instance;
        }
    }

    /**
     * Takes the device kept for adapter choice {@code choice}, or returns {@code null} if none is; a kept device
     * that was lost meanwhile is released here and {@code null} returned.
     */
    static NativeDevice takeKept(String choice) {
        NativeDevice kept;
        WgpuInstance owner;
        synchronized (LOCK) {
            kept = KEPT.remove(choice);
            owner = instance;
        }
        if (kept != null && kept.lostWhileKept()) {
            owner.lock.lock();
            try {
                kept.discard(owner);
            } finally {
                owner.lock.unlock();
            }
            return null;
        }
        return kept;
    }

    /** Keeps {@code device} for the next backend with its choice; {@code false} if one is kept already. */
    static boolean keep(NativeDevice device) {
        synchronized (LOCK) {
            return KEPT.putIfAbsent(device.choice, device) == null;
        }
    }

    /** The instance if one was created, else {@code null}; for tests and diagnostics. */
    static WgpuInstance existing() {
        synchronized (LOCK) {
            return instance;
        }
    }

    /** Adds {@code registry} to the routing table and returns the number callbacks will name it by. */
    static long route(CallbackRegistry registry) {
        long id = REGISTRY_IDS.getAndIncrement();
        ROUTES.put(id, registry);
        return id;
    }

    static void unroute(long id) {
        ROUTES.remove(id);
    }

    /** The registry named {@code id}, or {@code null} once it was closed. */
    static CallbackRegistry registry(long id) {
        return ROUTES.get(id);
    }

    /** Registries still routed to: the instance's own plus one per open device. */
    static int routed() {
        return ROUTES.size();
    }
}
