package dev.graphrt.spi;

/**
 * Software graphs: the core records a capture's launches itself (the stream sees none of them while it records)
 * and hands the recording to the backend once, at {@code endCapture}; {@link BackendStream#replay} then runs the
 * sealed form. Nothing is open in the backend while a stream records, so there is nothing to abort.
 */
public non-sealed interface SoftwareGraphs extends CaptureSupport {

    /**
     * Turns the core's recording into the form {@link BackendStream#replay} runs, once, so replays do no per-launch
     * lookups. Keep the launches and their order exactly, run nothing, and never copy buffer contents: a replay
     * reads the buffers as they are at replay time. The default keeps the recording as it is.
     */
    default BackendGraph seal(RecordedLaunches recording) {
        return recording;
    }

    /**
     * {@code GRAPH_UPDATE}: the graph to replay from now on instead of {@code target}, whose new recording is
     * {@code recording} (same shape). The core calls it for {@code Graph.update} and, with the recording patched to
     * the new buffers, for {@code Graph.rebind}. The default seals it afresh; the core destroys {@code target} after
     * the replays that used it, so a pending replay never sees a half-changed graph.
     */
    default BackendGraph update(BackendGraph target, RecordedLaunches recording) {
        return seal(recording);
    }
}
