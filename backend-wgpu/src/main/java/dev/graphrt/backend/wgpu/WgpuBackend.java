package dev.graphrt.backend.wgpu;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.KernelCompiler;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opened wgpu backend: one WebGPU device, its memory, its WGSL compiler and its streams. Graphs are
 * software graphs: the core records launches, {@link WgpuStream#seal} resolves them once into a
 * {@link SealedGraph}, and a replay encodes and submits it in chunks ({@link ReplayChunks}), so the device runs
 * one chunk while the host encodes the next.
 *
 * <p>Capabilities: {@link Capability#MID_CAPTURE_ALLOCATION} (creating a buffer has nothing to do with the
 * recording) and {@link Capability#CAPTURE_MODE_RELAXED}, which the core enforces on its own (as it does
 * THREAD_LOCAL, the default mode, which every backend takes). Not {@link Capability#RECORDS_WRITES}: a recording
 * hands the backend launches only, so there is nothing to replay a write from. {@link Capability#DEVICE_LOSS_RECOVERY}: a lost
 * device loses only its runtime ({@code DeviceLostException}); the JVM's one WebGPU instance stays, and a new
 * runtime gets a new device from it. {@link Capability#GRAPH_UPDATE}: an update or a rebind seals the new
 * recording into a new {@link SealedGraph} (the SPI's default); the core destroys the old one after its replays.
 * {@link Capability#MULTI_STREAM_CAPTURE}: the core records a fork/join capture into one list in call order, and
 * the device's one queue replays it in order.
 */
final class WgpuBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(WgpuBackend.class);
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.MID_CAPTURE_ALLOCATION,
            Capability.CAPTURE_MODE_RELAXED,
            Capability.DEVICE_LOSS_RECOVERY,
            Capability.GRAPH_UPDATE,
            Capability.MULTI_STREAM_CAPTURE));

    private final WgpuDevice device;
    private final DeviceInfo info;
    private final WgpuMemory memory;
    private final WgpuCompiler compiler;
    private final int batch;
    private final ReplayChunks chunks;
    private final AtomicBoolean closed = new AtomicBoolean();

    WgpuBackend(WgpuDevice device, int batch, ReplayChunks chunks) {
        this.device = device;
        this.batch = batch;
        this.chunks = chunks;
        WgpuInstance.AdapterInfo a = device.adapter.info();
        String driver = a.backendName()
                + (a.description().isBlank() ? "" : ", " + a.description())
                + (a.isCpu() ? ", CPU adapter" : "");
        this.info = new DeviceInfo(WgpuBackendProvider.NAME, a.device(), driver, -1, 0, device.limits.launchLimits());
        this.memory = new WgpuMemory(device);
        this.compiler = new WgpuCompiler(device);
        LOG.debug("wgpu backend opened on {} (limits {})", info, device.limits);
    }

    @Override
    public String name() {
        return WgpuBackendProvider.NAME;
    }

    @Override
    public DeviceInfo device() {
        return info;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
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
        device.lock.lock();
        try {
            device.checkUsable();
            return new WgpuStream(device, batch, chunks);
        } finally {
            device.lock.unlock();
        }
    }

    /** The device's limits, for diagnostics and tests. */
    WgpuDevice.Limits limits() {
        return device.limits;
    }

    /** The device itself, for tests that need to reach below the SPI. */
    WgpuDevice nativeDevice() {
        return device;
    }

    WgpuInstance.AdapterInfo adapterInfo() {
        return device.adapter.info();
    }

    /**
     * Closes the streams, the kernels and the device, in that order; the process's WebGPU instance stays (see
     * {@link WebGpuProcess}). Closing twice, or from two threads, closes once.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (WgpuStream stream : device.streams()) {
            try {
                stream.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a wgpu stream failed", e);
            }
        }
        device.lock.lock();
        try {
            compiler.releaseAll();
        } finally {
            device.lock.unlock();
        }
        device.close();
        LOG.debug("wgpu backend closed");
    }
}
