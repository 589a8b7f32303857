package dev.graphrt.spi;

import dev.graphrt.api.LaunchDims;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One backend stream: ordered device work, its capture support ({@link #capture()}), replays and graph destruction.
 * The core calls the capture hooks only in the order of DESIGN.md section 2 and never calls a host-synchronising
 * method ({@link #read}, {@link #synchronize}, {@link #await}, {@link #isComplete}) while this stream records, so a
 * backend cannot invalidate its own capture. The core serialises calls per stream.
 *
 * <p>{@link #recordFence} is the exception, on purpose: inside a capture the core records events to fork and join
 * streams ({@code GpuStream.record()}, and the join-back of a member before the capture ends or is abandoned), so
 * on a {@link DriverCapture} stream a fence recorded while capturing must be an event node of the capture (the
 * driver's event record, captured), never a pooled fence that the backend later queries or reuses.
 */
public interface BackendStream extends AutoCloseable {

    // ---- ordinary work ---------------------------------------------------------------------------

    /** Enqueues a launch; while a {@link DriverCapture} is open the driver records it instead. */
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
    default void flush() {}

    /**
     * Marks the current end of the stream's work. Also called while a driver capture records (fork/join): the fence
     * is then an event recorded into the capture, which other streams of the capture wait for on the device.
     */
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

    // ---- capture (core only, DESIGN.md section 2) --------------------------------------------------

    /**
     * How this stream's captures become graphs: a {@link DriverCapture} (the driver records) or {@link SoftwareGraphs}
     * (the core records, the backend seals), chosen once, when the stream opens: every call returns the same object,
     * and every stream of a backend offers the same kind. The core asks once, when it opens the stream.
     */
    CaptureSupport capture();

    /** PREPARE entered: create what the warm-up and the capture will need (library handles, workspaces). */
    default void onPrepare() {}

    /**
     * Enqueues one replay of a graph this stream sealed; while a {@link DriverCapture} is open (with
     * {@code NESTED_GRAPHS}) the driver records it as a child graph instead.
     */
    void replay(BackendGraph graph);

    /** Frees a graph. The core calls this only after a fence showed its replays finished. */
    default void destroy(BackendGraph graph) {}

    /** Releases the stream. The core has synchronised it first. */
    @Override
    void close();
}
