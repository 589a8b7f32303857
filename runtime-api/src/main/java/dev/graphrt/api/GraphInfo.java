package dev.graphrt.api;

import java.time.Duration;

/**
 * What a graph is and holds.
 *
 * @param id              the graph's id within its runtime
 * @param kind            hardware (driver graph) or software (core recording)
 * @param nodeCount       recorded operations
 * @param pinnedBytes     bytes of device memory the graph keeps from reuse while it lives
 * @param captureDuration time from {@code beginCapture} to the end of {@code endCapture}
 * @param replayCount     replays enqueued so far
 */
public record GraphInfo(
        long id, GraphKind kind, int nodeCount, long pinnedBytes, Duration captureDuration, long replayCount) {}
