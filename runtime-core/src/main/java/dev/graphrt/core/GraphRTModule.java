package dev.graphrt.core;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.spi.BackendProvider;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Binds the core's replaceable services: the {@link RuntimeOptions}, the {@link ProviderSource} (default:
 * {@link ServiceLoader}) and the {@link BackendChoice} (default: system property, then environment).
 * Override any of them with {@code Modules.override(new GraphRTModule(options)).with(...)}. No AOP.
 */
public final class GraphRTModule extends AbstractModule {
    private final RuntimeOptions options;

    public GraphRTModule(RuntimeOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public GraphRTModule() {
        this(RuntimeOptions.defaults());
    }

    @Override
    protected void configure() {
        bind(RuntimeOptions.class).toInstance(options);
    }

    @Provides
    ProviderSource providerSource() {
        return GraphRTModule::loadProviders;
    }

    @Provides
    BackendChoice backendChoice() {
        return BackendChoice.fromEnvironment();
    }

    /** Every provider on the module path or class path, in load order. */
    static List<BackendProvider> loadProviders() {
        return ServiceLoader.load(BackendProvider.class, GraphRTModule.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .toList();
    }
}
