package dev.graphrt.driver;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@link BackendProvider} part every driver backend shares: its name and priority, opening through the
 * backend's factory, and a probe that never throws. A backend's provider says only what it checks
 * ({@link #check}); an exception there becomes the reason the backend is unavailable.
 *
 * <p>A subclass is what {@code ServiceLoader} finds, so it is public with a public no-argument constructor, and
 * construction does no native work.
 */
public abstract class DriverBackendProvider implements BackendProvider {
    private final String name;
    private final int priority;
    private final Function<BackendConfig, ? extends Backend> opener;

    /** A provider of the backend {@code name}, ranked {@code priority}, opened by {@code opener}. */
    protected DriverBackendProvider(String name, int priority, Function<BackendConfig, ? extends Backend> opener) {
        this.name = Objects.requireNonNull(name, "name");
        this.priority = priority;
        this.opener = Objects.requireNonNull(opener, "opener");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final int priority() {
        return priority;
    }

    @Override
    public final Availability probe() {
        return probe(BackendConfig.defaults());
    }

    /** Never throws: says why the backend cannot be used here, or what it found. */
    @Override
    public final Availability probe(BackendConfig config) {
        try {
            return check(config);
        } catch (RuntimeException | LinkageError e) {
            return Availability.unavailable(name + " probe failed: " + e);
        }
    }

    @Override
    public final Backend open(BackendConfig config) {
        return opener.apply(config);
    }

    /** What the probe finds for {@code config}; may throw, which {@link #probe} reports as the reason. */
    protected abstract Availability check(BackendConfig config);

    /** Available with {@code count} devices, described by the first: "NVIDIA H200 ... (+1 more)". */
    protected static Availability devices(int count, String first) {
        return Availability.available(count == 1 ? first : first + " (+" + (count - 1) + " more)")
                .withDevices(count);
    }
}
