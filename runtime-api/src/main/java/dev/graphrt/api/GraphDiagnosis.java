package dev.graphrt.api;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Graph#diagnose()} found: the graph's recorded launches were run one at a time, each followed by a
 * synchronize (and, in checked mode, a look at the guards of the graph's buffers), up to the first that failed.
 *
 * @param graphId       the graph
 * @param launches      launches in the graph's recording
 * @param failedAt      index of the first launch that failed or broke a guard, or -1 when none did
 * @param failedLaunch  that launch (kernel name, grid and block), or empty
 * @param failure       its error (a driver error, {@link BufferOverrunException}, {@link DeviceLostException}), or null
 */
public record GraphDiagnosis(
        long graphId,
        int launches,
        int failedAt,
        String failedLaunch,
        @Nullable GraphRTException failure) {
    /** Whether every launch ran cleanly. */
    public boolean healthy() {
        return failedAt < 0;
    }
}
