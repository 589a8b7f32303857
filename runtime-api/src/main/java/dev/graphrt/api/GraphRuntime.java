package dev.graphrt.api;

import java.util.Set;

/**
 * One opened backend on one device: the factory of streams and kernels and the owner of all device
 * memory. Obtain one with {@code dev.graphrt.core.GraphRT.open()}. Closing it closes every stream and
 * graph and returns every byte to the device.
 */
public interface GraphRuntime extends AutoCloseable {
    /** The backend's name ("cuda", "hip", "wgpu", "cpu"). */
    String backendName();

    DeviceInfo device();

    Set<Capability> capabilities();

    GraphKind graphKind();

    GpuStream openStream();

    /** Compiles (or returns the cached) kernel for this runtime's backend. */
    Kernel compile(KernelSource source);

    MemoryStats memoryStats();

    /**
     * A cache of graphs keyed by shape on {@code stream} (a stream of this runtime), bounded by
     * {@code options.maxGraphs()}: see {@link GraphCache}.
     */
    <K> GraphCache<K> graphCache(GpuStream stream, GraphCacheOptions options);

    /** A new {@link GraphPool}: graphs captured into it share their intermediates. */
    GraphPool graphPool();

    /**
     * Starts telling {@code observer} what this runtime does (see {@link RuntimeObserver}) until the returned
     * subscription is closed or the runtime closes. Null is refused.
     */
    RuntimeObserver.Subscription observe(RuntimeObserver observer);

    /**
     * This runtime's collectives ({@link Capability#COLLECTIVES}): communicators between its streams and those of
     * other runtimes (devices) of the backend, in this process or others. Without the capability it throws
     * {@link UnsupportedCapabilityException}.
     */
    Collectives collectives();

    /** Returns free pooled memory to the device. */
    void trim();

    @Override
    void close();
}
