package dev.graphrt.core.discovery;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.BackendChoice;
import dev.graphrt.core.ProviderSource;
import dev.graphrt.core.runtime.CoreRuntime;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/** Opens a runtime: selects a provider, opens its backend and wraps it in the core. */
public final class RuntimeFactory {
    private final ProviderSource providers;
    private final BackendChoice choice;
    private final RuntimeOptions options;
    private final BackendSelector selector;

    @Inject
    public RuntimeFactory(ProviderSource providers, BackendChoice choice, RuntimeOptions options) {
        this.providers = providers;
        this.choice = choice;
        this.options = options;
        this.selector = new BackendSelector(new BackendConfig(options.deviceIndex(), options.backendOptions()));
    }

    public GraphRuntime open() {
        Optional<String> forced = options.backend();
        String forcedBy = "RuntimeOptions.backend";
        if (forced.isEmpty()) {
            forced = choice.forcedBackend();
            forcedBy = "-Dgraphrt.backend or GRAPHRT_BACKEND";
        }
        BackendSelector.Probed chosen = selector.select(providers.providers(), forced, forcedBy);
        Backend backend;
        try {
            backend = chosen.provider().open(new BackendConfig(options.deviceIndex(), options.backendOptions()));
        } catch (RuntimeException failure) {
            throw new BackendUnavailableException(
                    "Backend '" + chosen.provider().name() + "' probed available but " + "failed to open: "
                            + failure.getMessage(),
                    List.of(chosen.line()),
                    failure);
        }
        try {
            return new CoreRuntime(backend, options);
        } catch (RuntimeException failure) {
            backend.close();
            throw failure;
        }
    }

    /** Every device of every available backend, best backend first, then by ordinal: see {@link DeviceLister}. */
    public List<AvailableDevice> devices() {
        return new DeviceLister(selector, options.backendOptions()).list(providers.providers());
    }

    /** Every provider's probe result, one line each (for diagnostics and the demo). */
    public List<String> describeProviders() {
        return selector.probeAll(providers.providers()).stream()
                .map(BackendSelector.Probed::line)
                .toList();
    }
}
