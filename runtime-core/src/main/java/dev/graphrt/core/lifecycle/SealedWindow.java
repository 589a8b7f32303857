package dev.graphrt.core.lifecycle;

import dev.graphrt.spi.BackendGraph;
import java.time.Duration;
import java.util.List;

/** What a successful {@code endCapture} produced, before the stream wraps it as a user-facing graph. */
public record SealedWindow(long graphId, BackendGraph graph, long pinnedBytes, List<String> nodeLabels,
                           Duration captureDuration) {
}
