package dev.graphrt.spi;

import java.util.Map;
import java.util.Objects;

/**
 * What the core passes to {@link BackendProvider#open}: the device ordinal and the free-form options of
 * {@code RuntimeOptions.backendOptions()} (keys conventionally prefixed with the backend's name).
 */
public record BackendConfig(int deviceIndex, Map<String, String> options) {
    public BackendConfig {
        Objects.requireNonNull(options, "options");
        options = Map.copyOf(options);
    }

    public static BackendConfig defaults() {
        return new BackendConfig(0, Map.of());
    }

    /** An option, or {@code fallback} when absent. */
    public String option(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }
}
