package dev.graphrt.core.runtime;

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
}
