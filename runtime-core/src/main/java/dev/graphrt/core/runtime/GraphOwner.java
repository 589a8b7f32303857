package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.UpdateResult;
import java.util.function.Consumer;
import dev.graphrt.api.GraphDiagnosis;

import dev.graphrt.api.Graph;

/**
 * What a graph needs of the stream that sealed it, and nothing more: the graph knows this interface, not the
 * stream. Both calls may come from any thread; {@link #unused} never blocks.
 */
interface GraphOwner {
    /** The stream's id, for messages. */
    long id();

    /** Enqueues one replay of {@code graph} on the owning stream. */
    void replay(Graph graph);

    /**
     * The graph's last holder let go (its user's handle, or the last graph that recorded it as a child): the
     * owner destroys it, unpins it and releases its buffers behind the work that may still use them. Never
     * blocks: when the stream is busy the release waits for the stream's next flush point.
     */
    void unused(CoreGraph graph);

    /** Re-runs {@code graph}'s recorded launches one at a time and reports the first that fails. */
    GraphDiagnosis diagnose(CoreGraph graph);

    /** Re-records {@code step} into {@code graph} in place (see {@code Graph.update}). */
    UpdateResult update(CoreGraph graph, CaptureOptions options, Consumer<GpuStream> step);

    /** Points {@code graph}'s launches that pass {@code from} at {@code to} (see {@code Graph.rebind}). */
    int rebind(CoreGraph graph, Buffer from, Buffer to);
}
