package dev.graphrt.spi;

import dev.graphrt.api.BlockShape;
import dev.graphrt.api.Dialect;
import java.util.Optional;
import java.util.OptionalInt;

/** A kernel a backend compiled: its own handle type (a CUfunction, a pipeline, a Java kernel). */
public interface CompiledKernel {
    String entryPoint();

    Dialect dialect();

    /**
     * The parameters the kernel declares, counted as {@link Bindings#parameterCount()} counts a launch's: its
     * buffers in order, then the info buffer when the launch has info words (docs/kernels.md). The backend reports
     * it at compile time (a driver's parameter query, the parsed signature, the WGSL bindings, a Java kernel's
     * declaration), and the core refuses at the call every launch that passes another count, before anything is
     * enqueued or recorded: a kernel given too few buffers reads out of bounds on the device, and one given too
     * many reads a buffer as its info, so neither may reach the backend.
     *
     * <p>Empty when the backend cannot tell (the default): such launches are not checked, and the layout in
     * docs/kernels.md is the caller's contract alone.
     */
    default OptionalInt declaredParameters() {
        return OptionalInt.empty();
    }

    /**
     * The block every launch of this kernel must use, where the kernel fixes it at compile time (WGSL's
     * {@code @workgroup_size}); empty where the launch chooses (CUDA C, HIP, Java kernels: the default). The core
     * refuses at the call a launch whose block differs, naming both: a WebGPU dispatch takes only the number of
     * workgroups, so a launch planned for another block would silently compute a part of its range, or run past it.
     */
    default Optional<BlockShape> requiredBlock() {
        return Optional.empty();
    }
}
