package dev.graphrt.core;

import java.util.Optional;

/**
 * Which backend the environment forces, if any. The default reads the system property
 * {@code graphrt.backend}, then the environment variable {@code GRAPHRT_BACKEND}; an explicit
 * {@code RuntimeOptions.backend(...)} wins over both.
 */
@FunctionalInterface
public interface BackendChoice {
    Optional<String> forcedBackend();

    /** The system property, then the environment variable. */
    static BackendChoice fromEnvironment() {
        return () -> Optional.ofNullable(System.getProperty("graphrt.backend"))
                .or(() -> Optional.ofNullable(System.getenv("GRAPHRT_BACKEND")))
                .map(String::trim)
                .filter(name -> !name.isEmpty());
    }
}
