package dev.graphrt.api;

/**
 * The parameters a {@link JavaKernel} takes, in the one layout of every dialect (docs/kernels.md): its buffers in
 * order ({@link JavaKernelArgs#buffer(int)}), then, when it reads info words, the info buffer
 * ({@link JavaKernelArgs#info(int)}). A Java kernel has no signature a backend could read, so it declares this
 * with {@link KernelSource#java(JavaKernel, JavaParameters)}, and the core checks every launch against it at the
 * call, as it checks a CUDA or WGSL kernel's parameters.
 *
 * @param buffers the buffer arguments, zero or more
 * @param info    whether the kernel reads info words, passed as the last parameter
 */
public record JavaParameters(int buffers, boolean info) {
    public JavaParameters {
        if (buffers < 0) {
            throw new IllegalArgumentException("buffers must not be negative, was " + buffers);
        }
    }

    /** A kernel of {@code buffers} buffers and no info words. */
    public static JavaParameters buffers(int buffers) {
        return new JavaParameters(buffers, false);
    }

    /** A kernel of {@code buffers} buffers followed by the info buffer: {@code (src, dst, info)} is {@code buffersAndInfo(2)}. */
    public static JavaParameters buffersAndInfo(int buffers) {
        return new JavaParameters(buffers, true);
    }

    /** Parameters as a launch counts them: the buffers, plus one for the info buffer. */
    public int count() {
        return buffers + (info ? 1 : 0);
    }
}
