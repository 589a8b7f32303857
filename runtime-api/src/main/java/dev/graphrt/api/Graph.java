package dev.graphrt.api;

/**
 * A captured step that replays with one submission. {@link #replay()} enqueues and returns; errors
 * surface at the next sync or read of the stream as {@link ReplayFailedException}. A graph retains every
 * buffer its recorded operations touch, pre-existing ones (weights) included, so it replays correctly even
 * after the user closed them. Closing never blocks: it releases the pinned memory and the retained buffers
 * after the in-flight replays finish (a fence, never a host sync of a recording stream). Closing twice, or
 * after the runtime closed, is a no-op; replaying a closed graph fails at once.
 */
public interface Graph extends AutoCloseable {
    /** The graph's id within its runtime. */
    long id();

    /** Enqueues one replay on the stream the graph was captured on. */
    void replay();

    GraphInfo info();

    /** Graphviz DOT text with one node per recorded operation. */
    String toDot();

    boolean isClosed();

    /**
     * Finds the launch that breaks this graph: runs its recorded launches eagerly, one at a time on its stream,
     * with a synchronize after each (and in checked mode a check of the guards of the graph's buffers), and
     * reports the first that fails. Writes recorded in the graph are not replayed. A debugging aid: it waits for
     * the device after every launch. Refused while the stream records.
     */
    GraphDiagnosis diagnose();

    @Override
    void close();
}
