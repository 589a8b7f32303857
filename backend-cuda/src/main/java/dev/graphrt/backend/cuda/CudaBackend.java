package dev.graphrt.backend.cuda;

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
 * The CUDA backend opened on one device: its retained primary context, raw device memory, the NVRTC
 * compiler and non-blocking streams whose captures become hardware graphs.
 *
 * <p>Capabilities, each because the driver really does it:
 * <ul>
 *   <li>{@link Capability#HARDWARE_GRAPH}: stream capture, {@code cuGraphInstantiateWithFlags}, {@code cuGraphLaunch};</li>
 *   <li>{@link Capability#CAPTURE_MODE_THREAD_LOCAL}, {@link Capability#CAPTURE_MODE_RELAXED}: passed to
 *       {@code cuStreamBeginCapture_v2} as they are;</li>
 *   <li>{@link Capability#DOT_EXPORT}: {@code cuGraphDebugDotPrint} of the captured graph;</li>
 *   <li>{@link Capability#RECORDS_WRITES}: a write while capturing is recorded as a memcpy node from a pinned
 *       copy that the graph owns and frees when it is destroyed (or at once when the capture aborts).</li>
 * </ul>
 * Not declared: {@code MID_CAPTURE_ALLOCATION} ({@code cuMemAlloc_v2} invalidates GLOBAL and THREAD_LOCAL
 * captures), {@code NESTED_GRAPHS} ({@code cuGraphLaunch} on a capturing stream returns 900),
 * {@code GRAPH_UPDATE} and {@code MULTI_STREAM_CAPTURE} (not implemented).
 */
final class CudaBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(CudaBackend.class);
    static final Set<Capability> CAPABILITIES = Collections.unmodifiableSet(EnumSet.of(
            Capability.HARDWARE_GRAPH,
            Capability.RECORDS_WRITES,
            Capability.CAPTURE_MODE_THREAD_LOCAL,
            Capability.CAPTURE_MODE_RELAXED,
            Capability.DOT_EXPORT));

    private final CudaDeviceDescription description;
    private final DeviceInfo deviceInfo;
    private final CudaContext context;
    private final DriverDeviceMemory memory;
    private final CudaKernelCompiler compiler;
    private final CaptureAwareReleases releases = new CaptureAwareReleases("cuda");
    private final AtomicLong streamIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    private CudaBackend(CudaDeviceDescription description, CudaContext context, NvrtcLocator locator) {
        this.description = description;
        this.deviceInfo = description.toDeviceInfo();
        this.context = context;
        this.memory = CudaDeviceMemory.create(context);
        this.compiler = new CudaKernelCompiler(context, description, locator);
    }

    /** Initialises the driver and retains the primary context of {@code config.deviceIndex()}. */
    static CudaBackend open(BackendConfig config) {
        String failure = CudaLibrary.failure().orElse(null);
        if (failure != null) {
            throw new BackendUnavailableException("the cuda backend cannot open", List.of("cuda: unavailable: " + failure));
        }
        int rc = CudaDriver.tryInit();
        if (rc != CudaNative.CUDA_SUCCESS) {
            throw CudaDriver.ERRORS.toException("cuInit", rc);
        }
        int count = CudaDriver.deviceCount();
        if (config.deviceIndex() >= count) {
            throw new IllegalArgumentException("deviceIndex " + config.deviceIndex() + " does not exist: this machine has "
                    + count + " CUDA device(s)");
        }
        CudaDeviceDescription description = CudaDeviceDescription.query(config.deviceIndex());
        CudaContext context = CudaContext.retainPrimary(config.deviceIndex());
        CudaBackend backend = new CudaBackend(description, context, new NvrtcLocator(config));
        LOG.debug("cuda: opened device {}: {}", config.deviceIndex(), description.summary());
        return backend;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public DeviceInfo device() {
        return deviceInfo;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
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
            throw new IllegalStateException("the cuda backend is closed");
        }
        return new CudaStream(streamIds.incrementAndGet(), context, releases);
    }

    /** The device this backend runs on. */
    CudaDeviceDescription description() {
        return description;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = null;
        try {
            context.makeCurrent();
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
        try {
            context.release();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        LOG.debug("cuda: closed device {}", description.ordinal());
        if (failure != null) {
            throw failure;
        }
    }
}
