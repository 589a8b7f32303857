package dev.graphrt.backend.cpu;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.KernelCompiler;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pure-Java backend. Each stream runs its work asynchronously on its own worker thread, in order, as a
 * GPU stream would, so fences, deferred frees and replays behave as they do on a device; large kernels
 * spread over a fork-join pool. Graphs are software graphs recorded by the core (each stream is its own
 * {@code SoftwareGraphs}); an update or a rebind seals the new recording afresh (the SPI's default), and the old
 * one is dropped after its queued replays ran. A capture that spans streams (fork/join) is recorded by the core
 * into one list in the order the calls were made, which respects every wait, and replays serially.
 */
public final class CpuBackend implements Backend {
    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.MID_CAPTURE_ALLOCATION,
            Capability.CAPTURE_MODE_RELAXED,
            Capability.GRAPH_UPDATE,
            Capability.MULTI_STREAM_CAPTURE,
            Capability.COLLECTIVES));

    private final ForkJoinPool pool;
    private final CpuMemory memory;
    private final CpuCompiler compiler = new CpuCompiler();
    private final CpuCollectives collectives = new CpuCollectives();
    private final AtomicInteger streamIds = new AtomicInteger();
    private final DeviceInfo device;

    /** A backend of {@code threads} worker threads whose memory is capped at {@code memoryBytes}. */
    public CpuBackend(int threads, long memoryBytes) {
        this.pool = new ForkJoinPool(threads);
        this.memory = new CpuMemory(memoryBytes);
        this.device = new DeviceInfo(
                CpuBackendProvider.NAME,
                "Java " + Runtime.version().feature() + " on " + threads + " threads",
                "JVM " + Runtime.version(),
                memoryBytes,
                threads,
                LaunchLimits.PORTABLE);
    }

    @Override
    public String name() {
        return CpuBackendProvider.NAME;
    }

    @Override
    public DeviceInfo device() {
        return device;
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

    /** Collectives between cpu runtimes of this process ({@link CpuCollectives}). */
    @Override
    public Optional<BackendCollectives> collectives() {
        return Optional.of(collectives);
    }

    @Override
    public BackendStream openStream() {
        return new CpuStream(streamIds.incrementAndGet(), pool);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
