package dev.graphrt.core.lifecycle;

import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.RecordedLaunches;
import java.time.Duration;
import java.util.List;

/**
 * What a successful {@code endCapture} produced, before the stream wraps it as a user-facing graph: the
 * backend's graph, the bytes pinned to it, the buffers its recorded operations touched (one hold each, which
 * the graph lets go when it is released) and the core's recording of its launches: for a software graph it is
 * the graph (a later capture that replays it records these launches as its own); for every graph it is what
 * {@code Graph.diagnose()} re-runs one launch at a time.
 */
public record SealedWindow(long graphId, BackendGraph graph, long pinnedBytes, List<String> nodeLabels,
                           Duration captureDuration, List<Retainable> retained, RecordedLaunches recording) {
}
