package dev.graphrt.conformance;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import org.junit.jupiter.api.Assumptions;

/** Helpers for a backend's kit class: open a backend by name, or skip with its probe's reason. */
public final class KitSupport {
    /**
     * System property naming the device ordinal the kit opens (default 0): the same kit class runs on each GPU of
     * a machine, one JVM per ordinal.
     */
    public static final String DEVICE_PROPERTY = "graphrt.kit.deviceIndex";

    private KitSupport() {}

    /** The ordinal {@value #DEVICE_PROPERTY} names, or 0. */
    public static int deviceIndex() {
        return Integer.getInteger(DEVICE_PROPERTY, 0);
    }

    /**
     * Opens {@code backend}; when it is unavailable here the calling test is skipped (a JUnit assumption) with
     * the backend's own probe result as the reason, so the output says why.
     */
    public static GraphRuntime openOrSkip(String backend, RuntimeOptions options) {
        try {
            return GraphRT.open(options.backend(backend));
        } catch (BackendUnavailableException unavailable) {
            String reason = unavailable.probeResults().stream()
                    .filter(line -> line.startsWith(backend + " "))
                    .findFirst()
                    .orElse(unavailable.getMessage().lines().findFirst().orElse(""));
            Assumptions.abort(backend + " backend unavailable here: " + reason);
            throw unavailable;
        }
    }

    /** Opens {@code backend} on the device {@value #DEVICE_PROPERTY} names (0 by default), or skips. */
    public static GraphRuntime openOrSkip(String backend) {
        return openOrSkip(backend, RuntimeOptions.defaults().deviceIndex(deviceIndex()));
    }
}
