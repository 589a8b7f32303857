package dev.graphrt.api;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link JavaKernel} sees: its buffers in argument order, and the launch's info words (the same
 * words a GPU kernel reads from its info buffer). Segments are little-endian device storage.
 */
public interface JavaKernelArgs {
    /** The i-th buffer argument, sized to its allocation (at least the buffer's requested bytes). */
    MemorySegment buffer(int index);

    /** Number of buffer arguments. */
    int bufferCount();

    /** The i-th info word as a signed 32-bit integer. */
    int info(int index);

    /** The i-th info word reinterpreted as a float. */
    default float infoFloat(int index) {
        return Float.intBitsToFloat(info(index));
    }

    /** Number of info words. */
    int infoCount();
}
