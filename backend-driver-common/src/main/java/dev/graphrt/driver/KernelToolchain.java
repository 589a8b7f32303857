package dev.graphrt.driver;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;

/**
 * The steps from kernel source to a launchable function that differ between driver backends: the runtime
 * compiler's run (NVRTC to PTX, hiprtc to a code object), loading the module, finding the function, and what the
 * driver can tell about its parameters. {@link DriverKernelCompiler} runs them in its one order, caches modules
 * and unloads them.
 *
 * <p>Each step throws {@link dev.graphrt.api.KernelCompilationException} for a fault of the kernel (it does not
 * compile, its entry point is missing) and the backend's {@code GraphRTException} for a driver fault.
 */
public interface KernelToolchain {

    /** The dialect it compiles; {@link dev.graphrt.api.KernelSource#text} chooses the text for it. */
    Dialect dialect();

    /** The message for a kernel that has no text in {@link #dialect()}, naming the kernel and the fix. */
    String missingSourceMessage(String entryPoint);

    /**
     * What, besides a kernel's text and entry point, decides the image {@link #compile} makes: the compiler and its
     * version, the target architecture, the options ("NVRTC 13.0 compute_90"). The disk cache
     * ({@link KernelImageCache}) keys entries by it, so it must change whenever the image would.
     */
    String imageKey();

    /** Compiles {@code text} into a loadable image (PTX, a code object). */
    byte[] compile(String entryPoint, String text);

    /** Loads {@code image} as a module; must not invalidate a capture in progress (RELAXED exchange). */
    MemorySegment loadModule(String entryPoint, byte[] image);

    /** The function {@code entryPoint} of {@code module}, loaded so that its first launch loads nothing. */
    MemorySegment function(MemorySegment module, String entryPoint);

    /** Parameters {@code function} takes after checking them (docs/kernels.md), or -1 when the driver cannot tell. */
    int parameterCount(String entryPoint, MemorySegment function);

    /** Unloads a module from {@link #loadModule}. */
    void unloadModule(MemorySegment module);

    /**
     * Whether the launches of {@code source}'s kernel go through the driver's programmatic dependent launch
     * ({@link StreamDriver#launchDependentKernel}). The default says no: the kernel is launched as any other, which
     * is what every backend that does not declare {@code PROGRAMMATIC_DEPENDENT_LAUNCH} must do.
     */
    default boolean launchesAsDependent(KernelSource source) {
        return false;
    }

    /**
     * The text put before an opted-in kernel's own ({@link KernelSource#programmaticDependent()}): it defines
     * {@code graphrt_wait_for_predecessors()} and {@code graphrt_launch_dependents()}. The default defines both to
     * do nothing, for a driver without the feature.
     */
    default String dependentLaunchPrelude() {
        return DependentLaunchPrelude.NO_OP;
    }
}
