package dev.graphrt.spi;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.LaunchDims;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One backend stream: ordered device work, plus the capture hooks. The core calls the hooks only in the
 * order of DESIGN.md section 2 and never calls a host-synchronising method ({@link #read},
 * {@link #synchronize}, {@link #await}, {@link #isComplete}, {@link #recordFence}) while this stream
 * records, so a backend cannot invalidate its own capture. The core serialises calls per stream.
 */
public interface BackendStream extends AutoCloseable {

    // ---- ordinary work ---------------------------------------------------------------------------

    /** Enqueues a launch; while a hardware capture is open the driver records it instead. */
    void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings);

    /**
     * Enqueues a host-to-device copy of all of {@code src} into {@code dst} (same length). {@code src} is
     * valid only during the call (it may be a heap segment): copy it before returning.
     */
    void write(DeviceSlice dst, MemorySegment src);

    /** Waits for all earlier work of this stream, then copies {@code src} into {@code dst} (same length). */
    void read(DeviceSlice src, MemorySegment dst);

    /**
     * Enqueues a device-to-device copy of all of {@code src} to the start of {@code dst} (at least as long), in
     * stream order; while a hardware capture is open the driver records it like a launch. Either slice may belong
     * to another instance of this backend (another device): then the copy goes device to device, with peer access
     * where the devices allow it. Returns false, enqueuing nothing, when this backend cannot make the copy: the
     * core then copies a slice of its own runtime through the host outside a capture, rejects it (at
     * {@code endCapture}) inside one, and refuses a copy between runtimes. The default cannot.
     */
    default boolean copy(DeviceSlice src, DeviceSlice dst) {
        return false;
    }

    /** Submits any batched work without waiting. */
    default void flush() {
    }

    /** Marks the current end of the stream's work. */
    Fence recordFence();

    /** Whether the work before {@code fence} finished; never blocks. */
    boolean isComplete(Fence fence);

    /** Blocks until the work before {@code fence} finished. */
    void await(Fence fence);

    /**
     * Waits at most {@code timeout} for the work before {@code fence}; returns whether it finished. The core
     * bounds every wait it makes through this method, so a stuck device becomes a typed timeout, not a hang.
     * The default polls {@link #isComplete}: spinning for the first 50 µs, yielding up to 10 ms (as a driver's
     * own synchronize does, so short waits cost no latency), then parking up to 1 ms at a time. A backend with
     * a timed wait of its own overrides it.
     */
    default boolean await(Fence fence, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long pause = 50_000;
        while (!isComplete(fence)) {
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                return false;
            }
            long waited = now - start;
            if (waited < 50_000) {
                Thread.onSpinWait();
            } else if (waited < 10_000_000) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(pause, deadline - now));
                pause = Math.min(pause * 2, 1_000_000);
            }
        }
        return true;
    }

    /**
     * Makes this stream's later work wait, on the device, for the work before {@code fence} on {@code other} (a
     * stream of the same backend, never this one) and returns true; or returns false when the backend cannot,
     * and the core then waits on the host (bounded). The core calls it between captures only.
     */
    default boolean waitFor(BackendStream other, Fence fence) {
        return false;
    }

    /** Blocks until all enqueued work finished; throws the first asynchronous error, if any. */
    void synchronize();

    /**
     * Errors of work that already finished and were not yet reported, without waiting. The core calls this
     * at {@code prepare()} so a capture never starts on a stream with a pending failure.
     */
    default List<Throwable> drainErrors() {
        return List.of();
    }

    // ---- capture hooks (core only, DESIGN.md section 2) -------------------------------------------

    /** PREPARE entered: create what the warm-up and the capture will need (library handles, workspaces). */
    default void onPrepare() {
    }

    /** HARDWARE only: start driver capture in {@code mode}. */
    default void openCapture(CaptureMode mode) {
        throw new UnsupportedOperationException("openCapture is for hardware-graph backends");
    }

    /**
     * HARDWARE only: end the driver capture, validate (no memory alloc/free nodes), instantiate, upload.
     * Must end the driver capture on every path, also when it throws.
     */
    default BackendGraph closeCapture() {
        throw new UnsupportedOperationException("closeCapture is for hardware-graph backends");
    }

    /**
     * SOFTWARE only: turn the core's recording into the form {@link #replay} runs, once, so replays do
     * no per-launch lookups. The default keeps the recording as it is.
     */
    default BackendGraph sealRecording(RecordedLaunches recording) {
        return recording;
    }

    /**
     * Abandons a capture from PREPARE or CAPTURE: ends any open driver capture and drops what it made.
     * Must be safe to call when no driver capture is open. Throwing here never wedges the stream: the core
     * is already back in NO_CAPTURE and suppresses the error onto the primary one.
     */
    default void abortCapture() {
    }

    // ---- graph update (GRAPH_UPDATE) --------------------------------------------------------------

    /**
     * HARDWARE with {@code GRAPH_UPDATE}: ends the driver capture like {@link #closeCapture}, but applies it to
     * {@code target} (a live graph this stream sealed, with the same shape) instead of instantiating a new one.
     * Returns the graph to replay from now on, which takes over {@code target}'s executable graph; {@code target}
     * is left a shell whose {@link #destroy} frees only what the old recording alone owned (the core destroys it
     * after the replays that used it). Must end the driver capture on every path. Throws
     * {@link UpdateRejectedException} when the driver refuses: {@code target} is then unchanged.
     */
    default BackendGraph closeCaptureInto(BackendGraph target) {
        throw new UnsupportedOperationException("closeCaptureInto is for hardware-graph backends with GRAPH_UPDATE");
    }

    /**
     * SOFTWARE with {@code GRAPH_UPDATE}: the graph to replay from now on instead of {@code target}, whose new
     * recording is {@code recording} (same shape). The default seals it afresh; the core destroys {@code target}
     * after the replays that used it, so a pending replay never sees a half-changed graph.
     */
    default BackendGraph updateRecording(BackendGraph target, RecordedLaunches recording) {
        return sealRecording(recording);
    }

    /**
     * {@code GRAPH_UPDATE}: the launches at {@code changed} (indices into the recording) of {@code graph}, which
     * ran {@code before}, now bind other buffers, as {@code after} (same kernels and dims) says. Returns the graph
     * to replay from now on: {@code graph} patched in place, where a driver applies that to later launches only
     * (CUDA's and HIP's {@code GraphExecKernelNodeSetParams}), or a new graph, and the core destroys the old one
     * after its replays. On failure, an in-place patch restores {@code before} where it already patched, then
     * throws. The default seals {@code after} afresh (software graphs).
     */
    default BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
        return sealRecording(after);
    }

    /** Enqueues one replay of a graph this stream sealed. */
    void replay(BackendGraph graph);

    /** Frees a graph. The core calls this only after a fence showed its replays finished. */
    default void destroy(BackendGraph graph) {
    }

    /** Releases the stream. The core has synchronised it first. */
    @Override
    void close();
}
