package dev.graphrt.backend.cpu.nested;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.backend.cpu.CpuBackendProvider;
import dev.graphrt.core.runtime.CoreRuntime;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.KernelCompiler;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The real cpu backend declaring {@link Capability#NESTED_GRAPHS} as well: a software backend needs nothing of
 * its own for it, since the core records a replayed child's launches into the parent's recording. This is how
 * the core's nested branch is tested without a GPU.
 */
final class NestedGraphsBackend implements Backend {
    private final Backend cpu = new CpuBackendProvider().open(new BackendConfig(0, Map.of("cpu.threads", "2")));

    static CoreRuntime openRuntime(RuntimeOptions options) {
        return new CoreRuntime(new NestedGraphsBackend(), options);
    }

    @Override
    public String name() {
        return cpu.name();
    }

    @Override
    public DeviceInfo device() {
        return cpu.device();
    }

    @Override
    public Optional<BackendCollectives> collectives() {
        return cpu.collectives();
    }

    @Override
    public Set<Capability> capabilities() {
        EnumSet<Capability> declared = EnumSet.copyOf(cpu.capabilities());
        declared.add(Capability.NESTED_GRAPHS);
        return declared;
    }

    @Override
    public DeviceMemory memory() {
        return cpu.memory();
    }

    @Override
    public KernelCompiler compiler() {
        return cpu.compiler();
    }

    @Override
    public BackendStream openStream() {
        return cpu.openStream();
    }

    @Override
    public void close() {
        cpu.close();
    }
}
