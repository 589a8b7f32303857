package dev.graphrt.conformance;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import org.junit.jupiter.api.Assumptions;

/** Helpers for a backend's kit class: open a backend by name, or skip with its probe's reason. */
public final class KitSupport {
    private KitSupport() {
    }

    /**
     * Opens {@code backend}; when it is unavailable here the calling test is skipped (a JUnit assumption) with
     * the backend's own probe result as the reason, so the output says why.
     */
    public static GraphRuntime openOrSkip(String backend, RuntimeOptions options) {
        try {
            return GraphRT.open(options.backend(backend));
        } catch (BackendUnavailableException unavailable) {
            String reason = unavailable.probeResults().stream().filter(line -> line.startsWith(backend + " "))
                    .findFirst().orElse(unavailable.getMessage().lines().findFirst().orElse(""));
            Assumptions.abort(backend + " backend unavailable here: " + reason);
            throw unavailable;
        }
    }

    public static GraphRuntime openOrSkip(String backend) {
        return openOrSkip(backend, RuntimeOptions.defaults());
    }
}
