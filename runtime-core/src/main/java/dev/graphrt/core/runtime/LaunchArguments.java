package dev.graphrt.core.runtime;

import dev.graphrt.api.BlockShape;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.spi.CompiledKernel;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * The one rule for a launch's arguments and dims, on every backend. Its argument count: a launch passes the kernel's declared parameters,
 * its buffers in order and then the info buffer when it has info words (docs/kernels.md), or it is refused at the
 * call, before anything is enqueued, recorded, allocated or held. A wrong count is never safe to hand a device:
 * too few buffers read out of bounds (on cuda and hip a sticky error that loses the context), too many shift the
 * info buffer so the kernel reads a data buffer as its info. The count comes from the backend at compile time
 * ({@link CompiledKernel#declaredParameters()}); a kernel whose count is unknown is not checked. Its dims: within
 * the device's {@link LaunchLimits} (a driver answers a launch beyond them with a bare "invalid value"), and the
 * block the kernel fixed at compile time where it fixes one (a WebGPU dispatch counts workgroups only, so another
 * block would silently compute part of the range).
 */
final class LaunchArguments {
    private LaunchArguments() {}

    /** The names of the first launch arguments, made once: naming an argument must cost a launch nothing. */
    private static final String[] BUFFER_ARGUMENTS =
            IntStream.range(0, 16).mapToObj(i -> "args.buffers[" + i + "]").toArray(String[]::new);

    /** {@code args.buffers[i]}, as checks and refusals name launch argument {@code i}. */
    static String bufferArgument(int i) {
        return i < BUFFER_ARGUMENTS.length ? BUFFER_ARGUMENTS[i] : "args.buffers[" + i + "]";
    }

    /** Refuses {@code args} with {@code IllegalArgumentException} naming the kernel and both counts when they differ. */
    static void check(CompiledKernel kernel, KernelArgs args) {
        OptionalInt declared = kernel.declaredParameters();
        int buffers = args.buffers().size();
        int passed = buffers + (args.hasInfo() ? 1 : 0);
        if (declared.isPresent() && declared.getAsInt() != passed) {
            throw new IllegalArgumentException(
                    message(kernel.entryPoint(), declared.getAsInt(), buffers, args.hasInfo()));
        }
    }

    /**
     * Refuses {@code dims} beyond the device's {@link LaunchLimits} (naming the field, its value and the limit, and
     * {@code device}, the device's label made once per stream), and
     * a block other than the one the kernel was compiled for (naming both), with {@code IllegalArgumentException}.
     */
    static void checkDims(CompiledKernel kernel, LaunchDims dims, LaunchLimits limits, String device) {
        limits.check(dims, device);
        Optional<BlockShape> required = kernel.requiredBlock();
        if (required.isPresent() && !required.get().matches(dims)) {
            throw new IllegalArgumentException("dims: kernel '" + kernel.entryPoint() + "' was compiled for blocks of "
                    + required.get() + " threads (its @workgroup_size), but the launch asks for " + dims.blockX() + "x"
                    + dims.blockY() + "x" + dims.blockZ() + "; launch it with that block, e.g. LaunchDims.linear(n, "
                    + required.get().x() + ")");
        }
    }

    /**
     * {@code kernel 'k' takes 3 parameters, but the launch passes 2: 1 buffer + the info buffer (buffers in order,
     * then the info buffer when the launch has info words; docs/kernels.md)}.
     */
    static String message(String entryPoint, int declared, int buffers, boolean info) {
        int passed = buffers + (info ? 1 : 0);
        return "kernel '" + entryPoint + "' takes " + declared + " parameter" + (declared == 1 ? "" : "s")
                + ", but the launch passes " + passed + ": " + buffers + " buffer" + (buffers == 1 ? "" : "s")
                + (info ? " + the info buffer" : ", no info buffer")
                + " (buffers in order, then the info buffer when the launch has info words; docs/kernels.md)";
    }
}
