package dev.graphrt.core.discovery;

import dev.graphrt.api.AvailableDevice;
import dev.graphrt.core.lifecycle.GraphKinds;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists the devices a machine can open: every available provider's ordinals {@code 0 .. deviceCount - 1} (its
 * probe says how many), each opened once to read what it is and what its backend declares on it, then closed.
 * Best backend first (the order {@code GraphRT.open()} would prefer), then by ordinal.
 *
 * <p>Opening is what makes the figures true (a probe only describes device 0), and it costs what opening costs
 * (a CUDA context per device): a listing is for start-up and diagnostics, not a hot path. A device that probes
 * available but fails to open is left out with a warning naming it and why.
 */
final class DeviceLister {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceLister.class);

    private final BackendSelector selector;
    private final Map<String, String> options;

    DeviceLister(BackendSelector selector, Map<String, String> options) {
        this.selector = selector;
        this.options = options;
    }

    List<AvailableDevice> list(List<BackendProvider> providers) {
        List<BackendSelector.Probed> available = BackendSelector.byPreference(selector.probeAll(providers));
        List<AvailableDevice> devices = new ArrayList<>();
        for (BackendSelector.Probed probed : available) {
            for (int ordinal = 0; ordinal < probed.availability().deviceCount(); ordinal++) {
                describe(probed.provider(), ordinal, devices);
            }
        }
        return List.copyOf(devices);
    }

    private void describe(BackendProvider provider, int ordinal, List<AvailableDevice> into) {
        try (Backend backend = provider.open(new BackendConfig(ordinal, options))) {
            into.add(new AvailableDevice(
                    provider.name(), ordinal, backend.device(), backend.capabilities(), GraphKinds.of(backend)));
        } catch (RuntimeException | LinkageError failure) {
            LOG.warn(
                    "{} device {} probed available but could not be opened; it is not listed: {}",
                    provider.name(),
                    ordinal,
                    failure.toString());
        }
    }
}
