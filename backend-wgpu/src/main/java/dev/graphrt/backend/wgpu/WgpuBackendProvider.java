package dev.graphrt.backend.wgpu;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The WebGPU backend's entry point ({@code "wgpu"}, priority {@value #PRIORITY}). It talks to any library that
 * exports the standard {@code webgpu.h} C API of the supported header generation; the one the project ships is
 * Google Dawn's {@code libwebgpu_wrapper.so}, installed by {@code scripts/setup-webgpu.sh}.
 *
 * <p>Options (backend options of the runtime, or the map given to {@link #WgpuBackendProvider(Map)}, which the
 * probe also sees):
 * <ul>
 *   <li>{@value LibraryLocator#OPTION}: the library's path; else the system property
 *       {@value LibraryLocator#PROPERTY}, the environment variable {@value LibraryLocator#ENV}, else
 *       {@value LibraryLocator#DEFAULT_RELATIVE} in the working directory or a parent of it;</li>
 *   <li>{@value #ADAPTER_OPTION}: {@code auto} (Vulkan, then OpenGL ES in compatibility mode), {@code vulkan},
 *       {@code gles}, {@code gl} or {@code any};</li>
 *   <li>{@value #BATCH_OPTION}: eager launches per submission (default {@value #DEFAULT_BATCH});</li>
 *   <li>{@value #REPLAY_CHUNK_OPTION}: dispatches per submission of a graph replay, {@code auto} (default: sized
 *       to the recording and the adapter, see {@link ReplayChunks}) or a positive count;</li>
 *   <li>{@value #BIND_GROUP_CACHE_OPTION}: bind groups kept (default {@value #DEFAULT_BIND_GROUP_CACHE});</li>
 *   <li>{@value DriverEnvironment#OPTION}: {@code false} stops the backend from completing the driver
 *       environment itself (see {@link DriverEnvironment}).</li>
 * </ul>
 *
 * <p>Every backend this provider opens (and every probe) uses the JVM's one WebGPU instance, which is never
 * released, so the GPU driver is loaded once and stays loaded; a runtime that closes healthy leaves its device for
 * the next one with the same adapter choice, since opening a device costs a GPU context ({@link WebGpuProcess}
 * and {@link NativeDevice} say why).
 *
 * <p>When the only adapter is a CPU one (lavapipe, llvmpipe, SwiftShader) the probe says available with priority
 * {@value #CPU_ADAPTER_PRIORITY}, below the pure-Java cpu backend, so automatic selection prefers that one; the
 * backend stays selectable by name.
 */
public final class WgpuBackendProvider implements BackendProvider {
    public static final String NAME = "wgpu";
    public static final int PRIORITY = 50;
    public static final int CPU_ADAPTER_PRIORITY = -10;
    public static final String LIBRARY_OPTION = LibraryLocator.OPTION;
    public static final String ADAPTER_OPTION = "wgpu.backend";
    public static final String BATCH_OPTION = "wgpu.batch";
    public static final String REPLAY_CHUNK_OPTION = "wgpu.replayChunk";
    public static final String BIND_GROUP_CACHE_OPTION = "wgpu.bindGroupCache";
    static final int DEFAULT_BATCH = 32;
    static final int DEFAULT_BIND_GROUP_CACHE = 4096;

    private final Map<String, String> options;

    /** The provider {@link java.util.ServiceLoader} makes: no options; does no native work. */
    public WgpuBackendProvider() {
        this(Map.of());
    }

    /** A provider whose probe and backends use {@code options} (overridden by a backend config's options). */
    public WgpuBackendProvider(Map<String, String> options) {
        this.options = Map.copyOf(Objects.requireNonNull(options, "options"));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Availability probe() {
        return probe(BackendConfig.defaults());
    }

    /** Probes with the runtime's options (library path, adapter choice) over this provider's own. */
    @Override
    public Availability probe(BackendConfig config) {
        Map<String, String> merged = new HashMap<>(options);
        merged.putAll(config.options());
        try {
            String missing = load(merged);
            if (missing != null) {
                return Availability.unavailable(missing);
            }
            WgpuInstance instance = instance(merged);
            WgpuInstance.Adapter adapter =
                    instance.requestAdapter(merged.get(ADAPTER_OPTION), DriverEnvironment.enabled(merged));
            lockAndRelease(instance, adapter);
            WgpuInstance.AdapterInfo info = adapter.info();
            if (info.isCpu()) {
                return Availability.available(
                        info + ": a CPU adapter, ranked below the cpu backend", CPU_ADAPTER_PRIORITY);
            }
            return Availability.available(info.toString());
        } catch (Throwable t) {
            return Availability.unavailable(reason(t));
        }
    }

    @Override
    public Backend open(BackendConfig config) {
        Objects.requireNonNull(config, "config");
        if (config.deviceIndex() != 0) {
            throw new IllegalArgumentException("deviceIndex: the wgpu backend opens the adapter WebGPU chooses "
                    + "(index 0), was " + config.deviceIndex());
        }
        Map<String, String> merged = new HashMap<>(options);
        merged.putAll(config.options());
        String missing = load(merged);
        if (missing != null) {
            throw new BackendUnavailableException("wgpu backend unavailable", List.of(NAME + ": " + missing));
        }
        int batch = intOption(merged, BATCH_OPTION, DEFAULT_BATCH);
        int cache = intOption(merged, BIND_GROUP_CACHE_OPTION, DEFAULT_BIND_GROUP_CACHE);
        String replayChunk = merged.get(REPLAY_CHUNK_OPTION);
        ReplayChunks.parse(REPLAY_CHUNK_OPTION, replayChunk, false); // bad input fails before a device is opened
        WgpuDevice device = WgpuDevice.open(
                instance(merged), adapterChoice(merged.get(ADAPTER_OPTION)), DriverEnvironment.enabled(merged), cache);
        try {
            return new WgpuBackend(
                    device,
                    batch,
                    ReplayChunks.parse(
                            REPLAY_CHUNK_OPTION,
                            replayChunk,
                            device.adapter.info().isCpu()));
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /** Finds and loads the library; {@code null} when ready, else why not. */
    private static String load(Map<String, String> options) {
        LibraryLocator location = LibraryLocator.locate(options);
        if (location.path().isEmpty()) {
            return location.searched();
        }
        return NativeLibrary.load(location.path().get());
    }

    /** The process's instance (the library is loaded); see {@link WebGpuProcess} for why it is one. */
    private static WgpuInstance instance(Map<String, String> options) {
        return WebGpuProcess.instance(NativeLibrary.loadedPath(), DriverEnvironment.enabled(options));
    }

    private static void lockAndRelease(WgpuInstance instance, WgpuInstance.Adapter adapter) {
        instance.lock.lock();
        try {
            adapter.release();
        } finally {
            instance.lock.unlock();
        }
    }

    /** The adapter preference in the one spelling a kept device is found by. */
    private static String adapterChoice(String preference) {
        return preference == null || preference.isBlank()
                ? "auto"
                : preference.strip().toLowerCase(Locale.ROOT);
    }

    private static int intOption(Map<String, String> options, String key, int fallback) {
        String value = options.get(key);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value.strip());
            if (parsed <= 0) {
                throw new NumberFormatException("not positive");
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a positive integer, was '" + value + "'", e);
        }
    }

    private static String reason(Throwable t) {
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.toString() : message;
    }
}
