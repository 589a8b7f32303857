package dev.graphrt.backend.template;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.KernelCompiler;
import java.util.Set;

/**
 * The opened template backend: one "device" made of off-heap memory, a compiler of JAVA-dialect kernels and
 * synchronous streams. Its graphs are software graphs (its streams offer {@code SoftwareGraphs}): the core records
 * the launches of a capture and the stream replays them.
 *
 * <p>It declares no capability: the base contract (with the default capture mode, THREAD_LOCAL) is all it offers.
 * Every capability is left out on purpose, so the conformance kit checks that each is refused the documented way.
 */
final class TemplateBackend implements Backend {
    private final DeviceInfo device;
    private final TemplateMemory memory;
    private final TemplateCompiler compiler = new TemplateCompiler();

    TemplateBackend(long memoryBytes) {
        this.memory = new TemplateMemory(memoryBytes);
        this.device = new DeviceInfo(
                TemplateBackendProvider.NAME,
                "Java " + Runtime.version().feature() + ", one thread",
                "JVM " + Runtime.version(),
                memoryBytes,
                1,
                LaunchLimits.PORTABLE);
    }

    @Override
    public String name() {
        return TemplateBackendProvider.NAME;
    }

    @Override
    public DeviceInfo device() {
        return device;
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of();
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
        return new TemplateStream();
    }

    /** Nothing to release: the core closed every stream and freed every block before calling this. */
    @Override
    public void close() {}
}
