package dev.graphrt.backend.cuda;

import java.lang.foreign.MemorySegment;

/**
 * The retained primary context of one device, made current on whichever thread calls into the backend.
 *
 * <p>Why {@code cuCtxSetCurrent} on every entry rather than a per-thread "already current" flag: a flag
 * goes stale when another backend instance (another device) or other CUDA code on the same thread sets
 * its own context, and then work silently lands on the wrong device. The driver returns at once when the
 * context is already current, so the call costs about as much as one downcall (~10-20 ns).
 */
final class CudaContext {
    private final int device;
    private final MemorySegment context;

    private CudaContext(int device, MemorySegment context) {
        this.device = device;
        this.context = context;
    }

    /** Retains the primary context of the device of {@code ordinal} and makes it current here. */
    static CudaContext retainPrimary(int ordinal) {
        int device = CudaDriver.device(ordinal);
        MemorySegment context = CudaDriver.primaryContextRetain(device);
        CudaContext retained = new CudaContext(device, context);
        try {
            retained.makeCurrent();
        } catch (RuntimeException e) {
            try {
                CudaDriver.primaryContextRelease(device);
            } catch (RuntimeException release) {
                e.addSuppressed(release);
            }
            throw e;
        }
        return retained;
    }

    /** Binds the context to the calling thread. */
    void makeCurrent() {
        CudaDriver.contextSetCurrent(context);
    }

    /**
     * Releases the retained primary context. A context left with a sticky error stays broken after the last
     * release (measured on the H200: the next retain returned 719), so it is reset first; other runtimes on it
     * are lost anyway, and later runtimes start on a clean context.
     */
    void release() {
        try {
            makeCurrent();
            if (CudaDriver.contextLost()) {
                CudaDriver.primaryContextReset(device);
            }
        } finally {
            CudaDriver.primaryContextRelease(device);
        }
    }
}
