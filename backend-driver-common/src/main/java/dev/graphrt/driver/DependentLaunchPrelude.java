package dev.graphrt.driver;

/**
 * The two functions an opted-in kernel's C text calls ({@code KernelSource.programmaticDependent()}), put before
 * its own text by {@link DriverKernelCompiler}: {@code graphrt_wait_for_predecessors()}, before the kernel first
 * touches memory that earlier work uses, and {@code graphrt_launch_dependents()}, once its successors may start.
 * A {@code #line 1} follows the prelude, so the compiler's messages give the lines of the kernel's own text.
 */
public final class DependentLaunchPrelude {
    /** Both functions doing nothing: a driver without programmatic dependent launch runs the kernel as any other. */
    public static final String NO_OP = "static __device__ __forceinline__ void graphrt_wait_for_predecessors() {}\n"
            + "static __device__ __forceinline__ void graphrt_launch_dependents() {}\n";

    private DependentLaunchPrelude() {}

    /** {@code prelude}, then {@code text} numbered from its own first line. */
    static String wrap(String prelude, String text) {
        return prelude + "#line 1\n" + text;
    }
}
