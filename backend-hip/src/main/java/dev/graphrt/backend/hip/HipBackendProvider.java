package dev.graphrt.backend.hip;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;

/** Placeholder provider of the HIP backend until its implementation lands: always unavailable, and says why. */
public final class HipBackendProvider implements BackendProvider {
    static final String NOT_IMPLEMENTED = "not implemented yet (the HIP backend is planned; see README)";

    @Override
    public String name() {
        return "hip";
    }

    @Override
    public int priority() {
        return 90;
    }

    @Override
    public Availability probe() {
        return Availability.unavailable(NOT_IMPLEMENTED);
    }

    @Override
    public Backend open(BackendConfig config) {
        throw new UnsupportedOperationException("hip backend: " + NOT_IMPLEMENTED);
    }
}
