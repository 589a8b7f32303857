package dev.graphrt.core.lifecycle;

import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.recording.NodeLabels;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.RecordedLaunches;
import java.time.Duration;
import java.util.List;

/**
 * What a successful {@code endCapture} produced, before the stream wraps it as a user-facing graph: the
 * backend's graph, the bytes pinned to it, the buffers its recorded operations touched (one hold each, which
 * the graph lets go when it is released) and the core's recording of its launches: for a software graph it is
 * the graph (a later capture that replays it records these launches as its own); for every graph it is what
 * {@code Graph.diagnose()} re-runs one launch at a time. {@code graphId} is what its slices and info buffers are
 * pinned to (a graph's first window has the graph's own id; an update's window a new one). {@code recordedWrites}
 * says whether the driver recorded host-to-device writes or device copies too, which a rebind does not patch.
 */
public record SealedWindow(
        long graphId,
        BackendGraph graph,
        long pinnedBytes,
        NodeLabels nodeLabels,
        Duration captureDuration,
        List<Retainable> retained,
        RecordedLaunches recording,
        boolean recordedWrites) {

    /** The same window replaying {@code patched} through {@code patchedGraph}, holding {@code holds}. */
    public SealedWindow rebound(BackendGraph patchedGraph, RecordedLaunches patched, List<Retainable> holds) {
        return new SealedWindow(
                graphId,
                patchedGraph,
                pinnedBytes,
                nodeLabels,
                captureDuration,
                List.copyOf(holds),
                patched,
                recordedWrites);
    }
}
