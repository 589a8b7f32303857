package dev.graphrt.backend.hip;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Capability;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.GraphKind;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.driver.CaptureAwareReleases;
import dev.graphrt.driver.DriverDeviceMemory;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HIP backend opened on one device: raw device memory, the hiprtc compiler and non-blocking streams whose
 * captures become hardware graphs. The same contract as the cuda backend, over {@code libamdhip64}.
 *
 * <p>Capabilities, each because the runtime really does it:
 * <ul>
 *   <li>{@link Capability#HARDWARE_GRAPH}: stream capture, {@code hipGraphInstantiateWithFlags} (flags 0),
 *       {@code hipGraphLaunch}; the graph is uploaded with {@code hipGraphUpload} only where the runtime has it
 *       (ROCm 5.3+; not Debian's 5.2, where the first replay uploads it; {@link DeviceInfo#driver()} says so);</li>
 *   <li>{@link Capability#CAPTURE_MODE_THREAD_LOCAL}, {@link Capability#CAPTURE_MODE_RELAXED}: passed to
 *       {@code hipStreamBeginCapture} as they are (HIP numbers the modes as CUDA does);</li>
 *   <li>{@link Capability#RECORDS_WRITES}: a write while capturing is recorded as a memcpy node from a pinned
 *       copy that the graph owns and frees when it is destroyed, exactly as in the cuda backend (the same
 *       {@code spi.support} code);</li>
 *   <li>{@link Capability#DOT_EXPORT}: only when the runtime exports {@code hipGraphDebugDotPrint} (ROCm 5.5+).</li>
 * </ul>
 * Not declared, as for cuda: {@code MID_CAPTURE_ALLOCATION}, {@code NESTED_GRAPHS}, {@code GRAPH_UPDATE},
 * {@code MULTI_STREAM_CAPTURE}.
 */
final class HipBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(HipBackend.class);

    private final HipDeviceDescription description;
    private final DeviceInfo deviceInfo;
    private final Set<Capability> capabilities;
    private final HipDevice device;
    private final DriverDeviceMemory memory;
    private final HipKernelCompiler compiler;
    private final HipGraphNodeTypes nodeTypes;
    private final CaptureAwareReleases releases = new CaptureAwareReleases("hip");
    private final AtomicLong streamIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    private HipBackend(HipDeviceDescription description, HipDevice device, HiprtcLocator locator, boolean dotExport) {
        this.description = description;
        this.deviceInfo = description.toDeviceInfo();
        this.capabilities = capabilities(dotExport);
        this.device = device;
        this.memory = HipDeviceMemory.create(device);
        this.compiler = new HipKernelCompiler(device, locator);
        this.nodeTypes = new HipGraphNodeTypes(description.runtimeVersion());
    }

    /** What this backend declares, given whether the runtime can dump graphs as DOT. */
    static Set<Capability> capabilities(boolean dotExport) {
        EnumSet<Capability> set = EnumSet.of(Capability.HARDWARE_GRAPH, Capability.RECORDS_WRITES,
                Capability.CAPTURE_MODE_THREAD_LOCAL, Capability.CAPTURE_MODE_RELAXED);
        if (dotExport) {
            set.add(Capability.DOT_EXPORT);
        }
        return Collections.unmodifiableSet(set);
    }

    /** Initialises the runtime and makes {@code config.deviceIndex()} current. */
    static HipBackend open(BackendConfig config) {
        HipLibrary.Loaded loaded = HipLibrary.load(config);
        if (loaded.failure() != null) {
            throw new BackendUnavailableException("the hip backend cannot open",
                    List.of("hip: unavailable: " + loaded.failure()));
        }
        int rc = HipRuntime.tryInit();
        HipRuntime.DeviceCount count = HipRuntime.tryDeviceCount();
        if (count.result() != HipNative.HIP_SUCCESS) {
            throw HipRuntime.ERRORS.toException("hipGetDeviceCount", count.result());
        }
        if (rc != HipNative.HIP_SUCCESS) {
            throw HipRuntime.ERRORS.toException("hipInit", rc);
        }
        if (config.deviceIndex() >= count.count()) {
            throw new IllegalArgumentException("deviceIndex " + config.deviceIndex() + " does not exist: this machine has "
                    + count.count() + " HIP device(s)");
        }
        HipDevice device = new HipDevice(config.deviceIndex());
        device.makeCurrent();
        HipDeviceDescription description = HipDeviceDescription.query(config.deviceIndex());
        HipBackend backend = new HipBackend(description, device, new HiprtcLocator(config),
                HipRuntime.hasGraphDebugDotPrint());
        LOG.debug("hip: opened device {} from {}: {} (hipGraphUpload {}, hipGraphDebugDotPrint {})",
                config.deviceIndex(), HipLibrary.origin(), description.summary(),
                HipRuntime.hasGraphUpload() ? "present" : "absent",
                HipRuntime.hasGraphDebugDotPrint() ? "present" : "absent");
        return backend;
    }

    @Override
    public String name() {
        return "hip";
    }

    @Override
    public DeviceInfo device() {
        return deviceInfo;
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public GraphKind graphKind() {
        return GraphKind.HARDWARE;
    }

    @Override
    public DeviceMemory memory() {
        return memory;
    }

    @Override
    public KernelCompiler compiler() {
        return compiler;
    }

    @Override
    public BackendStream openStream() {
        if (closed.get()) {
            throw new IllegalStateException("the hip backend is closed");
        }
        return new HipStream(streamIds.incrementAndGet(), device, releases, nodeTypes);
    }

    /** The device this backend runs on. */
    HipDeviceDescription description() {
        return description;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = null;
        try {
            device.makeCurrent();
            releases.drain();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            compiler.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        LOG.debug("hip: closed device {}", description.ordinal());
        if (failure != null) {
            throw failure;
        }
    }
}
