package dev.graphrt.core.discovery;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the backend to open: every provider is probed; a forced name must exist and be available; otherwise
 * the highest priority available one wins, ties broken by name with a warning. Every refusal lists every
 * provider's probe result, the way SLF4J 2 reports its providers.
 */
public final class BackendSelector {
    private static final Logger LOG = LoggerFactory.getLogger(BackendSelector.class);

    /** One provider and what its probe said. */
    public record Probed(BackendProvider provider, Availability availability, int priority) {
        public String line() {
            return provider.name() + " (priority " + priority + "): " + availability;
        }
    }

    private final BackendConfig config;

    public BackendSelector(BackendConfig config) {
        this.config = config;
    }

    public BackendSelector() {
        this(BackendConfig.defaults());
    }

    /** Probes every provider; a probe that throws despite its contract counts as unavailable. */
    public List<Probed> probeAll(List<BackendProvider> providers) {
        List<Probed> probed = new ArrayList<>();
        for (BackendProvider provider : providers) {
            Availability availability;
            try {
                availability = provider.probe(config);
            } catch (RuntimeException | LinkageError failure) {
                availability = Availability.unavailable("probe threw " + failure);
            }
            probed.add(new Probed(
                    provider, availability, availability.priorityOverride().orElse(provider.priority())));
        }
        return probed;
    }

    /** A forced backend is probed alone (no other native library is touched); the rest only for a diagnostic. */
    private Probed selectForced(List<BackendProvider> providers, String name, String forcedBy) {
        BackendProvider provider = providers.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElse(null);
        if (provider != null) {
            Probed match = probeAll(List.of(provider)).get(0);
            if (match.availability().available()) {
                return match;
            }
        }
        List<String> lines = probeAll(providers).stream().map(Probed::line).toList();
        if (provider == null) {
            throw new BackendUnavailableException(
                    "Backend '" + name + "' was requested (" + forcedBy + ") but no provider has that name. Providers:",
                    lines);
        }
        String reason = lines.stream()
                .filter(line -> line.startsWith(name + " "))
                .findFirst()
                .orElse(name);
        throw new BackendUnavailableException(
                "Backend '" + name + "' was requested (" + forcedBy + ") but is unavailable: "
                        + reason.substring(reason.indexOf("unavailable: ") + 13) + ". Providers:",
                lines);
    }

    /** The available ones of {@code probed}, the one {@link #select} would open first: highest priority, then by name. */
    public static List<Probed> byPreference(List<Probed> probed) {
        return probed.stream()
                .filter(p -> p.availability().available())
                .sorted(Comparator.comparingInt(Probed::priority)
                        .reversed()
                        .thenComparing(p -> p.provider().name()))
                .toList();
    }

    public Probed select(List<BackendProvider> providers, Optional<String> forced, String forcedBy) {
        if (providers.isEmpty()) {
            throw new BackendUnavailableException(
                    "No GraphRT backend provider was found on the class or module "
                            + "path. Add graphrt-backend-cpu (always available) or a GPU backend.",
                    List.of());
        }
        if (forced.isPresent()) {
            return selectForced(providers, forced.get(), forcedBy);
        }
        List<Probed> probed = probeAll(providers);
        List<String> lines = probed.stream().map(Probed::line).toList();
        List<Probed> available = byPreference(probed);
        if (available.isEmpty()) {
            throw new BackendUnavailableException("No GraphRT backend is available here. Providers:", lines);
        }
        Probed best = available.get(0);
        List<String> tied = available.stream()
                .filter(p -> p.priority() == best.priority())
                .map(p -> p.provider().name())
                .toList();
        if (tied.size() > 1) {
            LOG.warn(
                    "Several GraphRT backends are available at priority {}: {}; using '{}'. Choose one with "
                            + "-Dgraphrt.backend=NAME or GRAPHRT_BACKEND.",
                    best.priority(),
                    tied,
                    best.provider().name());
        }
        LOG.debug("backend selection: {} -> {}", lines, best.provider().name());
        return best;
    }
}
