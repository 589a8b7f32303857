package dev.graphrt.spi;

import dev.graphrt.api.CaptureMode;

/**
 * Driver capture: while the stream captures, the driver records what the stream is given ({@link BackendStream#launch},
 * {@link BackendStream#write} with {@code RECORDS_WRITES}, {@link BackendStream#copy}, {@link BackendStream#replay}
 * with {@code NESTED_GRAPHS}), and ending the capture instantiates the driver's graph. The core calls these in the
 * order of DESIGN.md section 2 and never calls a host-synchronising method of the stream in between.
 */
public non-sealed interface DriverCapture extends CaptureSupport {

    /** CAPTURE entered: start the driver capture in {@code mode}. Never synchronise the host. */
    void open(CaptureMode mode);

    /**
     * End the driver capture, validate (no memory alloc/free nodes), instantiate, upload. Must end the driver
     * capture on every path, also when it throws.
     */
    BackendGraph close();

    /**
     * {@code GRAPH_UPDATE} only: ends the driver capture like {@link #close}, but applies it to {@code target} (a live
     * graph this stream sealed, with the same shape) instead of instantiating a new one. Returns the graph to replay
     * from now on, which takes over {@code target}'s executable graph; {@code target} is left a shell whose
     * {@link BackendStream#destroy} frees only what the old recording alone owned (the core destroys it after the
     * replays that used it). Must end the driver capture on every path. Throws {@link UpdateRejectedException} when
     * the driver refuses: {@code target} is then unchanged. Never called on a backend without {@code GRAPH_UPDATE}.
     */
    BackendGraph closeInto(BackendGraph target);

    /**
     * {@code GRAPH_UPDATE} only, between captures: the launches at {@code changed} (indices into the recording) of
     * {@code graph}, which ran {@code before}, now bind other buffers, as {@code after} (same kernels and dims) says.
     * Returns the graph to replay from now on: {@code graph} patched in place, where the driver applies that to later
     * launches only (CUDA's and HIP's {@code GraphExecKernelNodeSetParams}), or a new graph, and the core destroys
     * the old one after its replays. On failure, an in-place patch restores {@code before} where it already patched,
     * then throws. Never called on a backend without {@code GRAPH_UPDATE}. (A software graph needs no such hook: its
     * rebind is an {@link SoftwareGraphs#update} with the patched recording.)
     */
    BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed);

    /**
     * Abandons a capture from PREPARE or CAPTURE: ends any open driver capture and drops what it made. Must be safe
     * to call when no driver capture is open. Throwing here never wedges the stream: the core is already back in
     * NO_CAPTURE and suppresses the error onto the primary one (or, on a user's cancel, reports it after cleanup).
     */
    void abort();
}
