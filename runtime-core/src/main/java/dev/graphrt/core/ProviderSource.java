package dev.graphrt.core;

import dev.graphrt.spi.BackendProvider;
import java.util.List;

/**
 * Where backend providers come from. The default is {@link java.util.ServiceLoader}; bind another in a Guice
 * module to test with a fixed list or a mock backend.
 */
@FunctionalInterface
public interface ProviderSource {
    List<BackendProvider> providers();
}
