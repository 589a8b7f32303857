package dev.graphrt.driver;

import java.util.List;

/**
 * The flag and enum values of the CUDA driver API that HIP copies number for number, as both backends pass or
 * read them: stream and event creation flags, the capture status, the graph node types that make a graph
 * unrelaunchable, and the flags of graph instantiation and DOT export. (Result codes are
 * {@link HardwareGraphErrors}'s, capture modes {@link DriverCaptureModes}'.)
 *
 * <p>Why shared: the values are the same in {@code cuda.h} and {@code hip_runtime_api.h}, so writing them once
 * keeps the backends from drifting; what only one API has (device attributes, JIT options, HIP's host-allocation
 * flags and its pre-5.3 node numbering) stays in the backend.
 */
public final class DriverConstants {
    private DriverConstants() {}

    /** {@code CU_STREAM_NON_BLOCKING}, {@code hipStreamNonBlocking}: no implicit synchronisation with the null stream. */
    public static final int STREAM_NON_BLOCKING = 0x1;
    /** {@code CU_EVENT_DISABLE_TIMING}, {@code hipEventDisableTiming}: the cheapest event, for fences. */
    public static final int EVENT_DISABLE_TIMING = 0x2;
    /** {@code CU_STREAM_CAPTURE_STATUS_NONE}, {@code hipStreamCaptureStatusNone}: the stream does not capture. */
    public static final int CAPTURE_STATUS_NONE = 0;
    /** {@code CU_STREAM_CAPTURE_STATUS_ACTIVE}, {@code hipStreamCaptureStatusActive}. */
    public static final int CAPTURE_STATUS_ACTIVE = 1;
    /** {@code CU_STREAM_SET_CAPTURE_DEPENDENCIES}, {@code hipStreamSetCaptureDependencies}. */
    public static final int SET_CAPTURE_DEPENDENCIES = 1;
    /** {@code CU_GRAPH_NODE_TYPE_KERNEL}, {@code hipGraphNodeTypeKernel}. */
    public static final int GRAPH_NODE_TYPE_KERNEL = 0;
    /** {@code CU_GRAPH_NODE_TYPE_MEM_ALLOC}, {@code hipGraphNodeTypeMemAlloc} (ROCm 5.5+). */
    public static final int GRAPH_NODE_TYPE_MEM_ALLOC = 10;
    /** {@code CU_GRAPH_NODE_TYPE_MEM_FREE}, {@code hipGraphNodeTypeMemFree} (ROCm 5.5+). */
    public static final int GRAPH_NODE_TYPE_MEM_FREE = 11;
    /** Graph instantiation flags GraphRT passes: none (auto-free-on-launch is for memory nodes, which it refuses). */
    public static final long GRAPH_INSTANTIATE_FLAGS = 0L;
    /** {@code CU_GRAPH_EXEC_UPDATE_*}, {@code hipGraphExecUpdate*}: the result of an executable-graph update, by value. */
    public static final List<String> GRAPH_EXEC_UPDATE_RESULTS = List.of(
            "SUCCESS",
            "ERROR",
            "ERROR_TOPOLOGY_CHANGED",
            "ERROR_NODE_TYPE_CHANGED",
            "ERROR_FUNCTION_CHANGED",
            "ERROR_PARAMETERS_CHANGED",
            "ERROR_NOT_SUPPORTED",
            "ERROR_UNSUPPORTED_FUNCTION_CHANGE",
            "ERROR_ATTRIBUTES_CHANGED");
    /** DOT export flags: 0 = topology, node types, kernel names. */
    public static final int GRAPH_DEBUG_DOT_FLAGS_DEFAULT = 0;
}
