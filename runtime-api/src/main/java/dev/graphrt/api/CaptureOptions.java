package dev.graphrt.api;

import java.util.Objects;

/**
 * Options of one capture: how many warm-up runs {@link GpuStream#capture} makes before it records,
 * and the {@link CaptureMode}. Immutable; use the withers.
 *
 * @param warmups warm-up runs of the step in PREPARE, 0 to 64; at least one is needed for any
 *                allocation inside the step on a hardware-graph backend
 * @param mode    the capture mode (default {@link CaptureMode#THREAD_LOCAL})
 */
public record CaptureOptions(int warmups, CaptureMode mode) {
    /** The most warm-up passes accepted; more would only waste time. */
    public static final int MAX_WARMUPS = 64;

    public CaptureOptions {
        Objects.requireNonNull(mode, "mode");
        if (warmups < 0 || warmups > MAX_WARMUPS) {
            throw new IllegalArgumentException("warmups must be between 0 and " + MAX_WARMUPS + ", was " + warmups);
        }
    }

    /** One warm-up, THREAD_LOCAL mode. */
    public static CaptureOptions defaults() {
        return new CaptureOptions(1, CaptureMode.THREAD_LOCAL);
    }

    public CaptureOptions warmups(int count) {
        return new CaptureOptions(count, mode);
    }

    public CaptureOptions mode(CaptureMode newMode) {
        return new CaptureOptions(warmups, newMode);
    }
}
