package dev.graphrt.backend.hip;

/**
 * One HIP device, made the current device of whichever thread calls into the backend.
 *
 * <p>HIP's runtime API has no context to retain: each thread has a current device ({@code hipSetDevice}),
 * and the runtime's implicit primary context of that device is used. So where the cuda backend calls
 * {@code cuCtxSetCurrent} on every entry, this one calls {@code hipSetDevice}, for the same reason: a
 * per-thread "already current" flag goes stale when other code on the thread switches devices. Nothing is
 * released at close.
 *
 * @param ordinal the device ordinal
 */
record HipDevice(int ordinal) {
    HipDevice {
        if (ordinal < 0) {
            throw new IllegalArgumentException("ordinal must be >= 0, was " + ordinal);
        }
    }

    /** Makes this device current on the calling thread. */
    void makeCurrent() {
        HipRuntime.setDevice(ordinal);
    }
}
