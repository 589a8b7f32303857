package dev.graphrt.spi;

/**
 * The entry point of a backend, found by {@link java.util.ServiceLoader}: declare it with
 * {@code provides dev.graphrt.spi.BackendProvider with ...} in {@code module-info.java} and in
 * {@code META-INF/services/dev.graphrt.spi.BackendProvider}. Must have a public no-argument constructor
 * that does no native work; all probing happens in {@link #probe()}.
 */
public interface BackendProvider {
    /** Short lower-case name used to force this backend ({@code -Dgraphrt.backend=NAME}). */
    String name();

    /** Higher wins when several backends are available. cpu is lowest (0); GPU backends use 100+. */
    int priority();

    /**
     * Finds out, cheaply and without side effects that outlive the call, whether {@link #open} can work
     * here. Never throws: every failure becomes {@link Availability#unavailable(String)} with the reason.
     */
    Availability probe();

    /**
     * Probes with the options the runtime will be opened with (library paths and the like), so a probe and
     * the {@link #open} that follows look in the same places. The default ignores them.
     */
    default Availability probe(BackendConfig config) {
        return probe();
    }

    /** Opens the backend on the configured device. Only called after a successful probe. */
    Backend open(BackendConfig config);
}
