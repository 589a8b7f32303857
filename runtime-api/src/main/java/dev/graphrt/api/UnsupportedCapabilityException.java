package dev.graphrt.api;

import java.util.Objects;

/**
 * An operation needs a {@link Capability} the backend does not declare. The message has a fixed shape,
 * {@code "<backend> backend does not support <CAPABILITY>: <operation>"}, so tools and the conformance
 * kit can rely on it.
 */
public final class UnsupportedCapabilityException extends GraphRTException {
    private final Capability capability;

    public UnsupportedCapabilityException(String backend, Capability capability, String operation) {
        super(backend + " backend does not support " + capability + ": " + operation);
        this.capability = Objects.requireNonNull(capability, "capability");
    }

    /** The capability that was missing. */
    public Capability capability() {
        return capability;
    }
}
