package dev.graphrt.driver;

import dev.graphrt.api.Dialect;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A kernel compiled by a driver backend: its function handle ({@code CUfunction}, {@code hipFunction_t}) in a
 * module the backend's compiler keeps loaded.
 *
 * @param backend        the backend that compiled it; a stream of another backend refuses it
 * @param dialect        the dialect it was compiled from
 * @param entryPoint     the kernel's name
 * @param function       the function handle
 * @param parameterCount parameters the kernel takes, from the driver or else its parsed signature, or -1 when
 *                       neither can tell
 * @param programmatic   whether its launches go through {@link StreamDriver#launchDependentKernel}: the kernel
 *                       opted into programmatic dependent launch and the backend declares it
 */
public record DriverKernel(
        String backend,
        Dialect dialect,
        String entryPoint,
        MemorySegment function,
        int parameterCount,
        boolean programmatic)
        implements CompiledKernel {
    public DriverKernel {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(entryPoint, "entryPoint");
        Objects.requireNonNull(function, "function");
    }

    /** {@link #parameterCount()}, which the core checks every launch against; empty when it is -1. */
    @Override
    public OptionalInt declaredParameters() {
        return parameterCount >= 0 ? OptionalInt.of(parameterCount) : OptionalInt.empty();
    }
}
