package dev.graphrt.core.runtime;

import dev.graphrt.api.KernelArgs;
import dev.graphrt.spi.CompiledKernel;
import java.util.OptionalInt;

/**
 * The one rule for a launch's argument count, on every backend: a launch passes the kernel's declared parameters,
 * its buffers in order and then the info buffer when it has info words (docs/kernels.md), or it is refused at the
 * call, before anything is enqueued, recorded, allocated or held. A wrong count is never safe to hand a device:
 * too few buffers read out of bounds (on cuda and hip a sticky error that loses the context), too many shift the
 * info buffer so the kernel reads a data buffer as its info. The count comes from the backend at compile time
 * ({@link CompiledKernel#declaredParameters()}); a kernel whose count is unknown is not checked.
 */
final class LaunchArguments {
    private LaunchArguments() {
    }

    /** Refuses {@code args} with {@code IllegalArgumentException} naming the kernel and both counts when they differ. */
    static void check(CompiledKernel kernel, KernelArgs args) {
        OptionalInt declared = kernel.declaredParameters();
        int buffers = args.buffers().size();
        int passed = buffers + (args.hasInfo() ? 1 : 0);
        if (declared.isPresent() && declared.getAsInt() != passed) {
            throw new IllegalArgumentException(message(kernel.entryPoint(), declared.getAsInt(), buffers,
                    args.hasInfo()));
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
