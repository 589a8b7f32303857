package dev.graphrt.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Options of one capture: how many warm-up runs {@link GpuStream#capture} makes before it records,
 * and the {@link CaptureMode}. Immutable; use the withers.
 *
 * @param warmups warm-up runs of the step in PREPARE, 0 to 64; at least one is needed for any
 *                allocation inside the step on a hardware-graph backend
 * @param mode    the capture mode (default {@link CaptureMode#THREAD_LOCAL})
 * @param pool    the {@link GraphPool} whose intermediates the graph shares, or null; it must be known from
 *                {@code prepare(options)} on ({@code capture(options, step)} does that)
 */
public record CaptureOptions(
        int warmups, CaptureMode mode, @Nullable GraphPool pool) {
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
        return new CaptureOptions(1, CaptureMode.THREAD_LOCAL, null);
    }

    /** Without a pool. */
    public CaptureOptions(int warmups, CaptureMode mode) {
        this(warmups, mode, null);
    }

    public CaptureOptions warmups(int count) {
        return new CaptureOptions(count, mode, pool);
    }

    public CaptureOptions mode(CaptureMode newMode) {
        return new CaptureOptions(warmups, newMode, pool);
    }

    /** Shares {@code graphPool}'s intermediates (null: none). */
    public CaptureOptions pool(@Nullable GraphPool graphPool) {
        return new CaptureOptions(warmups, mode, graphPool);
    }
}
