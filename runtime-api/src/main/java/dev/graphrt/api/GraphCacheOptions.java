package dev.graphrt.api;

import java.util.Objects;

/**
 * How a {@link GraphCache} behaves.
 *
 * @param maxGraphs        most graphs kept; the least recently used is evicted (closed) beyond it (at least 1)
 * @param missPolicy       what a miss does
 * @param eagerRunsFirst   under {@link MissPolicy#EAGER}: how many times a key runs eagerly before it is captured
 *                         (1: captured the second time it is seen)
 * @param capture          the capture options of a miss that captures (its warm-up count is ignored: exactly one
 *                         warm-up pass runs, and it is the call's run of the step)
 */
public record GraphCacheOptions(int maxGraphs, MissPolicy missPolicy, int eagerRunsFirst, CaptureOptions capture) {

    /** What a miss does. */
    public enum MissPolicy {
        /** Capture the step (running it once as the warm-up) and keep the graph. */
        CAPTURE,
        /** Run the step eagerly the first {@code eagerRunsFirst} times a key is seen, then capture it. */
        EAGER,
        /** Refuse with an {@code IllegalStateException} naming the key: every key must be captured beforehand. */
        FAIL
    }

    public GraphCacheOptions {
        if (maxGraphs < 1) {
            throw new IllegalArgumentException("maxGraphs must be at least 1, was " + maxGraphs);
        }
        Objects.requireNonNull(missPolicy, "missPolicy");
        if (eagerRunsFirst < 0) {
            throw new IllegalArgumentException("eagerRunsFirst must not be negative, was " + eagerRunsFirst);
        }
        Objects.requireNonNull(capture, "capture");
    }

    /** 16 graphs, capture on a miss, default capture options. */
    public static GraphCacheOptions defaults() {
        return new GraphCacheOptions(16, MissPolicy.CAPTURE, 1, CaptureOptions.defaults());
    }

    public GraphCacheOptions maxGraphs(int max) {
        return new GraphCacheOptions(max, missPolicy, eagerRunsFirst, capture);
    }

    public GraphCacheOptions missPolicy(MissPolicy policy) {
        return new GraphCacheOptions(maxGraphs, policy, eagerRunsFirst, capture);
    }

    public GraphCacheOptions eagerRunsFirst(int runs) {
        return new GraphCacheOptions(maxGraphs, missPolicy, runs, capture);
    }

    public GraphCacheOptions capture(CaptureOptions options) {
        return new GraphCacheOptions(maxGraphs, missPolicy, eagerRunsFirst, options);
    }
}
