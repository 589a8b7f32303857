package dev.graphrt.driver;

import dev.graphrt.api.LaunchDims;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The graph calls of one backend's streams (capture, validation, instantiation, replay, destruction), as
 * {@link GraphCapture} orders them. An implementation makes no decisions: each method is one native call, or a
 * fixed backend-specific check (which graph nodes it refuses, whether it can upload or dump a graph), so the
 * order of calls, the cleanup on every path and the messages live once, in {@link GraphCapture}.
 *
 * <p>Handles are the drivers' opaque pointers: a stream, a template graph ({@code CUgraph}, {@code hipGraph_t})
 * and an executable one ({@code CUgraphExec}, {@code hipGraphExec_t}). Every method but {@link #tryEndCapture}
 * throws the backend's {@code GraphRTException} on failure; the caller made the backend's context current.
 */
public interface GraphCalls {

    /** Begins a capture in the driver's numbering of the mode ({@link DriverCaptureModes}). */
    void beginCapture(MemorySegment stream, int mode);

    /**
     * Ends the capture, storing the template (or NULL) at {@code graphOut}; returns the result code without
     * throwing, because a template that came back must be destroyed even when the call failed.
     */
    int tryEndCapture(MemorySegment stream, MemorySegment graphOut);

    /** Whether the stream captures, or holds an invalidated capture that must still be ended. */
    boolean isCapturing(MemorySegment stream);

    /** The driver's id of the capture in progress (for logs), where the driver can tell it. */
    default OptionalLong captureId(MemorySegment stream) {
        return OptionalLong.empty();
    }

    /** How many nodes {@code template} has (one driver call). */
    int nodeCount(MemorySegment template);

    /** The node types of {@code template}, in the driver's numbering. */
    int[] nodeTypes(MemorySegment template);

    /** The nodes of {@code template} and their types, in the driver's order (a captured stream's launch order). */
    DriverCalls.GraphNodes nodes(MemorySegment template);

    /** The number of a kernel node in {@link #nodes}' types (CUDA's 0; a HIP runtime before ROCm 5.3 counts from 1). */
    default int kernelNodeType() {
        return DriverConstants.GRAPH_NODE_TYPE_KERNEL;
    }

    /** Whether the library can add a child graph to a capture ({@link #addChildToCapture}). */
    boolean nestsGraphs();

    /**
     * Adds {@code child} (a template; the driver clones it) to the capture open on {@code stream} as a child-graph
     * node after the capture's current dependencies, and makes that node the capture's only dependency, so the
     * stream's next work follows it: what a replay inside a capture becomes.
     */
    void addChildToCapture(MemorySegment stream, MemorySegment child);

    /** Whether the library has the update calls below ({@code GRAPH_UPDATE} is declared only then). */
    boolean updates();

    /** Why an executable-graph update was refused: the driver's update result and the node it named (or NULL). */
    record UpdateRefusal(int result, MemorySegment errorNode) {
        /** The result's name ({@code ERROR_TOPOLOGY_CHANGED}), shared by CUDA and HIP. */
        public String resultName() {
            return result >= 0 && result < DriverConstants.GRAPH_EXEC_UPDATE_RESULTS.size()
                    ? DriverConstants.GRAPH_EXEC_UPDATE_RESULTS.get(result)
                    : "result " + result;
        }
    }

    /**
     * Applies {@code template}'s node parameters to {@code exec} in place ({@code GraphExecUpdate}); only later
     * launches of {@code exec} see them. Empty when applied; the refusal when the driver could not apply it
     * ({@code exec} is then unchanged). Any other failure throws.
     */
    Optional<UpdateRefusal> execUpdate(MemorySegment exec, MemorySegment template);

    /**
     * Sets kernel node {@code node} of {@code exec} (a node of the template {@code exec} was instantiated from) to
     * launch {@code function} over {@code dims} with {@code kernelParams} ({@code GraphExecKernelNodeSetParams});
     * the driver copies the parameters, and only later launches of {@code exec} see them.
     */
    void setKernelNode(
            MemorySegment exec,
            MemorySegment node,
            MemorySegment function,
            LaunchDims dims,
            MemorySegment kernelParams);

    /**
     * Throws {@link dev.graphrt.api.GraphNotRelaunchableException} when {@code types} hold a node that makes the
     * graph unsafe to relaunch (memory allocation or free nodes); the message is the backend's.
     */
    void checkRelaunchable(int[] types);

    /** Instantiates {@code template} into an executable graph. */
    MemorySegment instantiate(MemorySegment template);

    /** Uploads {@code exec} to the device on the stream; does nothing where the driver cannot upload. */
    void upload(MemorySegment exec, MemorySegment stream);

    /** Whether {@link #printDot} is available (a DOT dump is skipped, not attempted, when it is not). */
    default boolean printsDot() {
        return true;
    }

    /** Writes the driver's DOT dump of {@code template} to the file {@code path}. */
    void printDot(MemorySegment template, String path);

    void destroyTemplate(MemorySegment template);

    /** Launches {@code exec} on the stream. */
    void launchGraph(MemorySegment exec, MemorySegment stream);

    void destroyExec(MemorySegment exec);
}
