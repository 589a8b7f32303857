package dev.graphrt.api;

import java.util.function.Consumer;

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
     * reports the first that fails. Writes and device copies recorded in the graph are not replayed, so a launch
     * that reads what one of them produced sees the buffer as it is. A debugging aid: it waits for
     * the device after every launch. Refused while the stream records.
     */
    GraphDiagnosis diagnose();

    /**
     * Re-records {@code step} into this live graph, in place, so a changed step needs no new graph: the step runs
     * through the same lifecycle as {@link GpuStream#capture} on the graph's stream (prepare, the warm-ups,
     * capture), then the new recording replaces the old one. It must have the same shape: as many launches, of
     * the same kernels, in the same order; buffers, info words and launch dims may change. Otherwise the update
     * is {@link UpdateResult.Rejected rejected}, naming the first differing node, and the graph is unchanged.
     *
     * <p>Replays enqueued before the update run the old recording (the update is ordered after them). What the
     * new recording touches is pinned and retained for the graph; what only the old one used is released after
     * the last replay that used it. Needs {@code GRAPH_UPDATE} ({@code UnsupportedCapabilityException}
     * otherwise); refused while the graph's stream records.
     */
    UpdateResult update(CaptureOptions options, Consumer<GpuStream> step);

    /** {@link #update(CaptureOptions, Consumer)} with the default options. */
    default UpdateResult update(Consumer<GpuStream> step) {
        return update(CaptureOptions.defaults(), step);
    }

    /**
     * Makes every recorded launch that passes {@code from} pass {@code to} instead, without re-recording (a
     * KV-cache swap): the next replay reads and writes {@code to}. Replays enqueued before it still use
     * {@code from}, which the graph keeps until they finish; {@code to} is retained for the graph. Only launches
     * are patched: recorded writes and device copies keep using {@code from}, so a graph that holds any keeps
     * {@code from} retained for as long as it lives.
     *
     * @return how many recorded launches were patched
     * @throws IllegalArgumentException when {@code from} is not used by the graph, the two sizes differ, or
     *         either buffer is closed or belongs to another runtime (nothing is changed)
     */
    int rebind(Buffer from, Buffer to);

    @Override
    void close();
}
