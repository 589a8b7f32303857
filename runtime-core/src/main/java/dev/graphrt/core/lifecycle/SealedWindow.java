package dev.graphrt.core.lifecycle;

import dev.graphrt.spi.BackendGraph;
import java.time.Duration;
import dev.graphrt.core.memory.Retainable;
import java.util.List;

/**
 * What a successful {@code endCapture} produced, before the stream wraps it as a user-facing graph: the
 * backend's graph, the bytes pinned to it, and the buffers its recorded operations touched (one hold each,
 * which the graph lets go when it is released).
 */
public record SealedWindow(long graphId, BackendGraph graph, long pinnedBytes, List<String> nodeLabels,
                           Duration captureDuration, List<Retainable> retained) {
}
