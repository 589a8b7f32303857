package dev.graphrt.backend.cpu;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;

/** Provider of the pure-Java backend: always available, lowest priority, the default when no GPU is present. */
public final class CpuBackendProvider implements BackendProvider {
    public static final String NAME = "cpu";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability probe() {
        return Availability.available("Java " + Runtime.version().feature() + " on "
                + Runtime.getRuntime().availableProcessors() + " cores");
    }

    @Override
    public Backend open(BackendConfig config) {
        if (config.deviceIndex() != 0) {
            throw new IllegalArgumentException("deviceIndex: the cpu backend has one device (0), was "
                    + config.deviceIndex());
        }
        int threads = Integer.parseInt(config.option("cpu.threads",
                String.valueOf(Runtime.getRuntime().availableProcessors())));
        if (threads < 1) {
            throw new IllegalArgumentException("cpu.threads must be >= 1, was " + threads);
        }
        return new CpuBackend(threads);
    }
}
