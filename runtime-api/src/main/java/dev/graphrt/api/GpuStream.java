package dev.graphrt.api;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * An ordered queue of device work, and the unit of capture. Outside a capture a stream may be used from
 * several threads. What each operation does in each {@link CaptureState} is fixed by the core for every
 * backend (DESIGN.md section 3): launches are recorded instead of run while capturing, host reads and
 * syncs are rejected then, and allocations come from the persistent pool from {@link #prepare()} on.
 *
 * <p>Most callers use {@link #capture(CaptureOptions, Consumer)}; the low-level calls exist for frameworks
 * that drive the lifecycle themselves.
 */
public interface GpuStream extends AutoCloseable {
    /** The stream's id within its runtime. */
    long id();

    // ---- memory -----------------------------------------------------------------------------------

    /** Allocates {@code bytes} (> 0) of device memory; contents are undefined. */
    Buffer allocate(long bytes);

    /** Allocates a buffer and enqueues an upload of {@code data}. */
    Buffer upload(float[] data);

    /** Allocates a buffer and enqueues an upload of {@code data}. */
    Buffer upload(int[] data);

    /** Enqueues a host-to-device copy of {@code data} to the start of {@code dst}. */
    void write(Buffer dst, float[] data);

    /** Enqueues a host-to-device copy of {@code data} to the start of {@code dst}. */
    void write(Buffer dst, int[] data);

    /** Enqueues a host-to-device copy of {@code data}'s bytes to the start of {@code dst}. */
    void write(Buffer dst, MemorySegment data);

    /**
     * Enqueues a device-to-device copy of all of {@code src} to the start of {@code dst}, in this stream's order.
     *
     * <ul>
     *   <li><b>Within this runtime</b> it is asynchronous, like a launch, and holds both buffers until it completes
     *       (closing either right after is safe). A backend without device-to-device copies (wgpu today) makes it
     *       through the host instead: a read and a write, which wait. While the stream records, a hardware-graph
     *       backend records it into the graph, and a rebind leaves the recorded copy on its buffers. A
     *       software-graph backend cannot record it, so {@code endCapture} rejects the capture and names the copy,
     *       as it does for a copy on a stream that joined another stream's capture.</li>
     *   <li><b>Between runtimes</b> of the same backend (another device, as one runtime per GPU has it), one of
     *       {@code src} and {@code dst} belongs to this stream's runtime. The copy goes device to device, with peer
     *       access where the devices allow it (the driver stages it through host memory otherwise), and returns
     *       once it completed. The other runtime's work on its buffer must have finished first (synchronize its
     *       stream). Refused while this stream records, and by a backend that cannot reach the other device.</li>
     * </ul>
     *
     * <p>{@code dst} must be at least as large as {@code src}. Bad arguments are refused naming them, before
     * anything is enqueued.
     */
    void copy(Buffer src, Buffer dst);

    /** Waits for earlier work and returns the buffer's contents as floats. */
    float[] readFloats(Buffer src);

    /** Waits for earlier work and returns the buffer's contents as ints. */
    int[] readInts(Buffer src);

    /** Waits for earlier work and copies {@code dst.byteSize()} bytes from the start of {@code src}. */
    void read(Buffer src, MemorySegment dst);

    // ---- work -------------------------------------------------------------------------------------

    /** Enqueues a kernel launch (or records it while capturing). */
    void launch(Kernel kernel, LaunchDims dims, KernelArgs args);

    /** Replays a graph captured on this stream (same as {@code graph.replay()}). */
    void replay(Graph graph);

    // ---- events ---------------------------------------------------------------------------------------

    /**
     * Marks the current end of this stream's work, for another stream of this runtime to wait for. While this
     * stream records, that needs {@code MULTI_STREAM_CAPTURE} ({@code UnsupportedCapabilityException} otherwise).
     */
    StreamEvent record();

    /**
     * Makes this stream's later work wait until the work before {@code event} finished, on the device where the
     * backend can (cuda and hip: a stream waiting for an event; cpu: its worker waits), else on the host, bounded by
     * the wait timeout. An event of this stream needs no wait; one of another runtime is refused
     * ({@code IllegalArgumentException}). While this stream records, that needs {@code MULTI_STREAM_CAPTURE}.
     */
    void waitFor(StreamEvent event);

    /** Submits batched work without waiting. Rejected while recording. */
    void flush();

    /** Waits until every enqueued operation finished; reports asynchronous errors. Rejected while recording. */
    void synchronize();

    // ---- capture ----------------------------------------------------------------------------------

    CaptureState captureState();

    /**
     * Runs {@code step} {@code options.warmups()} times in PREPARE, then once more while recording, and
     * returns the graph. Any exception cancels the capture and leaves the stream able to capture again.
     */
    Graph capture(CaptureOptions options, Consumer<GpuStream> step);

    /** NO_CAPTURE to PREPARE: the warm-up window begins; allocations are primed into the persistent pool. */
    void prepare();

    /**
     * {@link #prepare()} for a capture with {@code options}: with a {@link GraphPool} the window's temporaries may
     * already be the pool's intermediates, and {@code beginCapture} must be given the same pool.
     */
    void prepare(CaptureOptions options);

    /** Marks the end of one warm-up pass, so several passes prime one pass's working set, not their sum. */
    void endWarmupPass();

    /** PREPARE to CAPTURE with default options. */
    void beginCapture();

    /** PREPARE to CAPTURE: from now on work is recorded, not run. */
    void beginCapture(CaptureOptions options);

    /** CAPTURE to NO_CAPTURE: seals the graph. On failure the stream is still back in NO_CAPTURE. */
    Graph endCapture();

    /** PREPARE or CAPTURE to NO_CAPTURE, discarding everything the window held. */
    void cancelCapture();

    /** Waits for outstanding work, then releases the stream. Closing twice is a no-op. */
    @Override
    void close();
}
