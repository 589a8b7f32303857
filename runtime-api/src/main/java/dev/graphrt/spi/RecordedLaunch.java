package dev.graphrt.spi;

import dev.graphrt.api.LaunchDims;
import java.util.Objects;

/** One launch the core recorded for a software graph, fully resolved: nothing is looked up on replay. */
public record RecordedLaunch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
    public RecordedLaunch {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(bindings, "bindings");
    }
}
