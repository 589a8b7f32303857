package dev.graphrt.backend.cpu;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.OperatingSystemMXBean;
import com.sun.management.VMOption;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.lang.management.ManagementFactory;

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
            throw new IllegalArgumentException(
                    "deviceIndex: the cpu backend has one device (0), was " + config.deviceIndex());
        }
        int threads = Integer.parseInt(
                config.option("cpu.threads", String.valueOf(Runtime.getRuntime().availableProcessors())));
        if (threads < 1) {
            throw new IllegalArgumentException("cpu.threads must be >= 1, was " + threads);
        }
        String ceiling = config.option("cpu.memoryBytes", "");
        long memoryBytes = ceiling.isBlank() ? defaultMemoryBytes() : Long.parseLong(ceiling.strip());
        if (memoryBytes <= 0) {
            throw new IllegalArgumentException("cpu.memoryBytes must be positive, was " + memoryBytes);
        }
        return new CpuBackend(threads, memoryBytes);
    }

    /**
     * The default ceiling of the cpu backend's memory: {@code -XX:MaxDirectMemorySize} when it was set (the
     * user's own bound on off-heap memory), else the physical memory the JVM sees (its container's limit, if any).
     */
    static long defaultMemoryBytes() {
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        VMOption direct = hotspot.getVMOption("MaxDirectMemorySize");
        if (direct.getOrigin() != VMOption.Origin.DEFAULT) {
            long bytes = Long.parseLong(direct.getValue());
            if (bytes > 0) {
                return bytes;
            }
        }
        OperatingSystemMXBean os = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
        return os.getTotalMemorySize();
    }
}
