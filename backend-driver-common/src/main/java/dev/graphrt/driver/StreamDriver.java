package dev.graphrt.driver;

import dev.graphrt.api.LaunchDims;
import java.lang.foreign.MemorySegment;

/**
 * The native calls a hardware stream makes, for one backend (CUDA driver, HIP runtime): streams, launches,
 * asynchronous copies, events and (through {@link #graphs()}) the graph calls. {@link DriverStream} does every
 * {@code BackendStream} duty over these, and {@link GraphCapture} orders the graph calls, so an implementation
 * makes no decisions: each method is one native call, or a fixed backend-specific fact (whether freeing pinned
 * memory synchronises the device).
 *
 * <p>Handles are the drivers' opaque pointers: a stream, an event, a template graph ({@code CUgraph},
 * {@code hipGraph_t}) and an executable one ({@code CUgraphExec}, {@code hipGraphExec_t}). Every method other
 * than the {@code try} ones throws the backend's {@code GraphRTException} on failure. Callers make the backend's
 * context current first ({@link #makeCurrent()}), on the thread that makes the calls.
 */
public interface StreamDriver extends DriverContext {

    /**
     * Whether freeing pinned host memory may synchronise the device ({@code hipHostFree} on ROCm does): then the
     * stream frees its staging memory only when no capture of the backend runs, also at close.
     */
    default boolean hostFreeSynchronizes() {
        return false;
    }

    /** The profiler ranges of this backend's phases ({@link PhaseMarkers}); none by default. */
    default PhaseMarkers markers() {
        return PhaseMarkers.NONE;
    }

    // ---- streams and work ----------------------------------------------------------------------------

    /** A new non-blocking stream (never the legacy or null stream). */
    MemorySegment createStream();

    void destroyStream(MemorySegment stream);

    void synchronizeStream(MemorySegment stream);

    /** The stream's query: 0 idle, 600 busy, anything else an asynchronous error of earlier work. */
    int queryStream(MemorySegment stream);

    /**
     * Enqueues a device-to-device copy of {@code bytes}; with unified addressing either pointer may be another
     * device's (a peer copy), which goes directly where {@link #enablePeerAccess} succeeded, else through host memory.
     */
    void copyDeviceToDevice(long dst, long src, long bytes, MemorySegment stream);

    /**
     * Lets this device reach {@code peer}'s memory directly, where both devices allow it; false when they cannot.
     * Idempotent and cheap after the first call for a peer; leaves this device's context current. The default
     * cannot ({@link PeerAccess} is the shared part of an implementation).
     */
    default boolean enablePeerAccess(StreamDriver peer) {
        return false;
    }

    /** Launches {@code function} with {@code params} ({@code void**}), no shared memory. */
    void launchKernel(MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream);

    /**
     * Launches {@code function} as {@link #launchKernel} does, but allowed to start before the work ahead of it on
     * {@code stream} has finished (programmatic dependent launch; the kernel waits inside itself). Only kernels whose
     * {@link DriverKernel#programmatic()} is set come here. The default is the ordinary launch: a driver without the
     * feature runs an opted-in kernel as any other.
     */
    default void launchDependentKernel(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream) {
        launchKernel(function, dims, params, stream);
    }

    /** Stream-ordered host-to-device copy; {@code src} must stay valid until the copy ran (pinned memory). */
    void copyHostToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream);

    /** Stream-ordered device-to-host copy into pinned memory. */
    void copyDeviceToHost(MemorySegment dst, long src, long bytes, MemorySegment stream);

    // ---- events --------------------------------------------------------------------------------------

    /** A new event with timing disabled (the cheapest, for fences). */
    MemorySegment createEvent();

    void recordEvent(MemorySegment event, MemorySegment stream);

    /** Whether the work before {@code event} finished; never blocks. */
    boolean queryEvent(MemorySegment event);

    void synchronizeEvent(MemorySegment event);

    void destroyEvent(MemorySegment event);

    /** Makes {@code stream}'s later work wait for the work before {@code event}'s last record (flags 0). */
    void waitEvent(MemorySegment stream, MemorySegment event);

    // ---- graphs --------------------------------------------------------------------------------------

    /** The graph calls on this backend's streams. */
    GraphCalls graphs();
}
