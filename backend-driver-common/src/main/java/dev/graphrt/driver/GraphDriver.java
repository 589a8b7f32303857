package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;

/**
 * The native graph calls of one hardware stream (CUDA driver, HIP runtime), as {@link GraphCapture} needs
 * them. An implementation is bound to one stream and makes no decisions: each method is one native call
 * (or a fixed, backend-specific check), so the order of calls, the cleanup on every path and the messages
 * live once, in {@link GraphCapture}, for every hardware-graph backend.
 *
 * <p>Handles are the drivers' opaque pointers: a template graph ({@code CUgraph}, {@code hipGraph_t}) and an
 * executable graph ({@code CUgraphExec}, {@code hipGraphExec_t}). Methods other than {@link #tryEndCapture}
 * throw the backend's {@code GraphRTException} on failure. {@link GraphCapture} calls {@link #makeCurrent()}
 * before any other call on an entry point, from the thread that makes the calls.
 */
public interface GraphDriver {

    /** The backend's name, lower case ({@code cuda}, {@code hip}): log messages, graph names, DOT file names. */
    String backend();

    /** What the driver's function names start with ({@code cu}, {@code hip}), for messages naming a call. */
    String callPrefix();

    /** The backend's result-code mapping. */
    HardwareGraphErrors errors();

    /** Makes the backend's context (device) current on the calling thread. */
    void makeCurrent();

    /** Begins a capture on the stream in the driver's numbering of {@code mode} ({@link DriverCaptureModes}). */
    void beginCapture(int mode);

    /**
     * Ends the stream's capture, storing the template (or NULL) at {@code graphOut}; returns the result code
     * without throwing, because a template that came back must be destroyed even when the call failed.
     */
    int tryEndCapture(MemorySegment graphOut);

    /** Whether the stream is capturing, or holds an invalidated capture that must still be ended. */
    boolean isCapturing();

    /** The driver's id of the capture in progress (for logs), where the driver can tell it. */
    default OptionalLong captureId() {
        return OptionalLong.empty();
    }

    /** The node types of {@code template}, in the driver's numbering. */
    int[] nodeTypes(MemorySegment template);

    /**
     * Throws {@link dev.graphrt.api.GraphNotRelaunchableException} when {@code types} hold a node that makes
     * the graph unsafe to relaunch (memory allocation or free nodes); the message is the backend's.
     */
    void checkRelaunchable(int[] types);

    /** Instantiates {@code template} into an executable graph. */
    MemorySegment instantiate(MemorySegment template);

    /** Uploads {@code exec} to the device on the stream; does nothing where the driver cannot upload. */
    void upload(MemorySegment exec);

    /** Whether {@link #printDot} is available (a DOT dump is skipped, not attempted, when it is not). */
    default boolean printsDot() {
        return true;
    }

    /** Writes the driver's DOT dump of {@code template} to the file {@code path}. */
    void printDot(MemorySegment template, String path);

    /** Destroys a template graph. */
    void destroyTemplate(MemorySegment template);

    /** Launches {@code exec} on the stream. */
    void launch(MemorySegment exec);

    /** Destroys an executable graph. */
    void destroyExec(MemorySegment exec);
}
