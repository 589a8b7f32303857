package dev.graphrt.api;

import java.util.List;

/**
 * Deferred releases failed: a graph's destroy, a fence, or a free the core ran after the work that used the
 * resource finished. Each release runs on its own, so one failure never keeps the others from running. The
 * failures are reported at the stream's next {@code synchronize()} or {@code close()} (never blamed on an
 * unrelated call) and name what was being released; the first failure is the cause, later ones are suppressed.
 */
public final class ReleaseFailedException extends GraphRTException {
    private final List<String> resources;

    public ReleaseFailedException(String message, List<String> resources, Throwable cause) {
        super(message, cause);
        this.resources = List.copyOf(resources);
    }

    /** What each failed release was releasing, e.g. {@code "graph #3 (destroy)"}. */
    public List<String> resources() {
        return resources;
    }
}
