package dev.graphrt.spi;

import dev.graphrt.api.Capability;
import java.util.Optional;

/**
 * A sealed, replayable graph as the backend holds it: an instantiated driver graph (hardware) or the
 * backend's pre-resolved form of a recording (software).
 */
public interface BackendGraph {
    /** Recorded operations (driver nodes or recorded launches). */
    int nodeCount();

    /** The driver's DOT dump when the backend declares {@link Capability#DOT_EXPORT}; empty otherwise. */
    default Optional<String> driverDot() {
        return Optional.empty();
    }
}
