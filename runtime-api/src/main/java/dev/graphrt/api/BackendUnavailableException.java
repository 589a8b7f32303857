package dev.graphrt.api;

import java.util.List;

/**
 * No backend could be opened: none was found, the one forced by name is unavailable, or several tie.
 * The message lists every provider's probe result so the fix is visible without a debugger.
 */
public final class BackendUnavailableException extends GraphRTException {
    private final List<String> probeResults;

    public BackendUnavailableException(String message, List<String> probeResults) {
        super(message + (probeResults.isEmpty() ? "" : "\n  " + String.join("\n  ", probeResults)));
        this.probeResults = List.copyOf(probeResults);
    }

    public BackendUnavailableException(String message, List<String> probeResults, Throwable cause) {
        this(message, probeResults);
        initCause(cause);
    }

    /** One line per provider: {@code name (priority p): available|unavailable: reason}. */
    public List<String> probeResults() {
        return probeResults;
    }
}
