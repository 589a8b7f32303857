package dev.graphrt.backend.template;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;

/**
 * What {@code ServiceLoader} finds: the template backend's name, rank, probe and opening. Public with a public
 * no-argument constructor that does nothing, because discovery instantiates every provider on the path.
 *
 * <p>Its priority is below every shipped backend (cpu 0, wgpu on a CPU adapter -10), so adding this jar never
 * changes which backend {@code GraphRT.open()} picks: it runs only when asked for by name
 * ({@code -Dgraphrt.backend=template}) or when it is the only backend present.
 */
public final class TemplateBackendProvider implements BackendProvider {
    /** The name that forces this backend. */
    public static final String NAME = "template";
    /** Below every shipped backend; -10 would tie wgpu on a CPU adapter and win the tie by name. */
    public static final int PRIORITY = -100;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /** Always available: it needs nothing but the JVM. A real backend looks for its library and device here. */
    @Override
    public Availability probe() {
        return Availability.available("Java " + Runtime.version().feature() + ", synchronous, on the calling thread");
    }

    /** Options: {@code template.memoryBytes}, the device's size (default 1 GiB). */
    @Override
    public Backend open(BackendConfig config) {
        if (config.deviceIndex() != 0) {
            throw new IllegalArgumentException(
                    "deviceIndex: the template backend has one device (0), was " + config.deviceIndex());
        }
        long memoryBytes = Long.parseLong(
                config.option("template.memoryBytes", String.valueOf(1L << 30)).strip());
        if (memoryBytes <= 0) {
            throw new IllegalArgumentException("template.memoryBytes must be positive, was " + memoryBytes);
        }
        return new TemplateBackend(memoryBytes);
    }
}
