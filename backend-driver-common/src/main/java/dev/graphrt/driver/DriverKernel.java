package dev.graphrt.driver;

import dev.graphrt.api.Dialect;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A kernel compiled by a driver backend: its function handle ({@code CUfunction}, {@code hipFunction_t}) in a
 * module the backend's compiler keeps loaded.
 *
 * @param backend        the backend that compiled it; a stream of another backend refuses it
 * @param dialect        the dialect it was compiled from
 * @param entryPoint     the kernel's name
 * @param function       the function handle
 * @param parameterCount parameters the kernel takes, or -1 when the driver cannot tell (HIP, CUDA before 12.4)
 */
public record DriverKernel(String backend, Dialect dialect, String entryPoint, MemorySegment function,
        int parameterCount) implements CompiledKernel {
    public DriverKernel {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(entryPoint, "entryPoint");
        Objects.requireNonNull(function, "function");
    }
}
