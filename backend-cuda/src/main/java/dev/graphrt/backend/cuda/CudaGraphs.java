package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.BoundGraphCalls;
import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.GraphSymbols;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The CUDA driver's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: capture, instantiation
 * and upload ({@code cuGraphUpload}) are made by {@link BoundGraphCalls} through the symbols named here. What is
 * CUDA's own: the graph launch (the replay's hot path, a plain {@code invokeExact}), the capture id from the newest
 * {@code cuStreamGetCaptureInfo}, and the rule that memory allocation and free nodes make a graph unrelaunchable.
 * Stateless: the caller made the backend's context current.
 */
final class CudaGraphs extends BoundGraphCalls {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle cuGraphLaunch = CudaHandles.BINDER.bind(Symbol.cuGraphLaunch);
    private static final MethodHandle cuStreamGetCaptureInfoV3 =
            CudaHandles.BINDER.bind(Symbol.cuStreamGetCaptureInfo_v3);
    private static final MethodHandle cuStreamGetCaptureInfoV2 =
            CudaHandles.BINDER.bind(Symbol.cuStreamGetCaptureInfo_v2);
    private static final MethodHandle cuGraphExecUpdateV2 = CudaHandles.BINDER.bind(Symbol.cuGraphExecUpdate_v2);
    private static final MethodHandle cuStreamUpdateCaptureDependenciesV2 =
            CudaHandles.BINDER.bind(Symbol.cuStreamUpdateCaptureDependencies_v2);
    private static final GraphSymbols SYMBOLS = new GraphSymbols(
            Symbol.cuStreamBeginCapture_v2,
            Symbol.cuStreamEndCapture,
            Symbol.cuStreamIsCapturing,
            Symbol.cuGraphGetNodes,
            Symbol.cuGraphNodeGetType,
            Symbol.cuGraphInstantiateWithFlags,
            Symbol.cuGraphUpload,
            Symbol.cuGraphDebugDotPrint,
            Symbol.cuGraphDestroy,
            Symbol.cuGraphLaunch,
            Symbol.cuGraphExecDestroy,
            Symbol.cuGraphExecUpdate_v2,
            Symbol.cuGraphExecKernelNodeSetParams_v2,
            Symbol.cuGraphAddChildGraphNode,
            Symbol.cuStreamGetCaptureInfo_v3,
            Symbol.cuStreamUpdateCaptureDependencies_v2);

    CudaGraphs() {
        super(CudaDriver.CALLS, CudaHandles.BINDER, SYMBOLS);
    }

    @Override
    protected int rawLaunchGraph(MemorySegment exec, MemorySegment stream) throws Throwable {
        return (int) cuGraphLaunch.invokeExact(exec, stream);
    }

    /** CUDA 12's update reports into a {@code CUgraphExecUpdateResultInfo}; its result and node are copied out. */
    @Override
    protected int rawExecUpdate(
            MemorySegment exec, MemorySegment template, MemorySegment result, MemorySegment errorNode)
            throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(CudaNative.GRAPH_EXEC_UPDATE_RESULT_INFO);
            int rc = (int) cuGraphExecUpdateV2.invokeExact(exec, template, info);
            result.set(JAVA_INT, 0, info.get(JAVA_INT, 0));
            errorNode.set(ADDRESS, 0, info.get(ADDRESS, 8));
            return rc;
        }
    }

    /** The newest capture info (12.3+); the edge data is not asked for: GraphRT's captures have plain edges. */
    @Override
    protected int rawCaptureInfo(
            MemorySegment stream,
            MemorySegment status,
            MemorySegment graph,
            MemorySegment dependencies,
            MemorySegment count)
            throws Throwable {
        return (int) cuStreamGetCaptureInfoV3.invokeExact(
                stream, status, MemorySegment.NULL, graph, dependencies, MemorySegment.NULL, count);
    }

    @Override
    protected int rawSetCaptureDependencies(MemorySegment stream, MemorySegment nodes, long count) throws Throwable {
        return (int) cuStreamUpdateCaptureDependenciesV2.invokeExact(
                stream, nodes, MemorySegment.NULL, count, DriverConstants.SET_CAPTURE_DEPENDENCIES);
    }

    @Override
    protected boolean hasCaptureDependencyCalls() {
        return cuStreamGetCaptureInfoV3 != null && cuStreamUpdateCaptureDependenciesV2 != null;
    }

    @Override
    protected boolean hasExecUpdate() {
        return cuGraphExecUpdateV2 != null;
    }

    /** A {@code CUDA_KERNEL_NODE_PARAMS}: the function, its dims and parameters; no library kernel, no context. */
    @Override
    protected MemorySegment kernelNodeParams(
            Arena arena, MemorySegment function, LaunchDims dims, MemorySegment kernelParams) {
        MemorySegment params = arena.allocate(CudaNative.KERNEL_NODE_PARAMS); // zeroed: extra, kern, ctx NULL
        params.set(ADDRESS, 0, function);
        params.set(JAVA_INT, 8, dims.gridX());
        params.set(JAVA_INT, 12, dims.gridY());
        params.set(JAVA_INT, 16, dims.gridZ());
        params.set(JAVA_INT, 20, dims.blockX());
        params.set(JAVA_INT, 24, dims.blockY());
        params.set(JAVA_INT, 28, dims.blockZ());
        params.set(ADDRESS, 40, kernelParams);
        return params;
    }

    /** The driver's id of the capture in progress (for logs), from the newest {@code cuStreamGetCaptureInfo}. */
    @Override
    public OptionalLong captureId(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment id = arena.allocate(JAVA_LONG);
            MemorySegment none = MemorySegment.NULL;
            int rc;
            if (cuStreamGetCaptureInfoV3 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v3", () ->
                        (int) cuStreamGetCaptureInfoV3.invokeExact(stream, status, id, none, none, none, none));
            } else if (cuStreamGetCaptureInfoV2 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v2", () ->
                        (int) cuStreamGetCaptureInfoV2.invokeExact(stream, status, id, none, none, none));
            } else {
                return OptionalLong.of(-1);
            }
            return OptionalLong.of(
                    rc == HardwareGraphErrors.SUCCESS && status.get(JAVA_INT, 0) != DriverConstants.CAPTURE_STATUS_NONE
                            ? id.get(JAVA_LONG, 0)
                            : -1);
        }
    }

    @Override
    public void checkRelaunchable(int[] types) {
        long allocations = Arrays.stream(types)
                .filter(t -> t == DriverConstants.GRAPH_NODE_TYPE_MEM_ALLOC)
                .count();
        long frees = Arrays.stream(types)
                .filter(t -> t == DriverConstants.GRAPH_NODE_TYPE_MEM_FREE)
                .count();
        if (allocations + frees > 0) {
            throw new GraphNotRelaunchableException("the captured graph holds " + allocations
                    + " memory allocation node(s) and " + frees + " memory free node(s) (stream-ordered "
                    + "cuMemAllocAsync/cuMemFreeAsync inside the capture); such a graph cannot be relaunched "
                    + "safely: allocate before beginCapture() (during the warm-up) instead");
        }
    }
}
