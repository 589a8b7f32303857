package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.BoundGraphCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.GraphSymbols;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The HIP runtime's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: capture, instantiation,
 * upload and the DOT dump are made by {@link BoundGraphCalls} through the symbols named here. {@code hipGraphUpload}
 * is used only where the runtime exports it (ROCm 5.2 does not: the first replay then uploads the graph), the
 * driver DOT only where {@code hipGraphDebugDotPrint} exists (ROCm 5.5+). What is HIP's own: the graph launch (the
 * replay's hot path, a plain {@code invokeExact}) and memory nodes recognised in the runtime's own numbering
 * ({@link HipGraphNodeTypes}). The caller made the device current.
 */
final class HipGraphs extends BoundGraphCalls {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle hipGraphLaunch = HipHandles.BINDER.bind(Symbol.hipGraphLaunch);
    private static final MethodHandle hipGraphExecUpdate = HipHandles.BINDER.bind(Symbol.hipGraphExecUpdate);
    private static final MethodHandle hipStreamGetCaptureInfoV2 =
            HipHandles.BINDER.bind(Symbol.hipStreamGetCaptureInfo_v2);
    private static final MethodHandle hipStreamUpdateCaptureDependencies =
            HipHandles.BINDER.bind(Symbol.hipStreamUpdateCaptureDependencies);
    private static final GraphSymbols SYMBOLS = new GraphSymbols(
            Symbol.hipStreamBeginCapture,
            Symbol.hipStreamEndCapture,
            Symbol.hipStreamIsCapturing,
            Symbol.hipGraphGetNodes,
            Symbol.hipGraphNodeGetType,
            Symbol.hipGraphInstantiateWithFlags,
            Symbol.hipGraphUpload,
            Symbol.hipGraphDebugDotPrint,
            Symbol.hipGraphDestroy,
            Symbol.hipGraphLaunch,
            Symbol.hipGraphExecDestroy,
            Symbol.hipGraphExecUpdate,
            Symbol.hipGraphExecKernelNodeSetParams,
            Symbol.hipGraphAddChildGraphNode,
            Symbol.hipStreamGetCaptureInfo_v2,
            Symbol.hipStreamUpdateCaptureDependencies);

    private final HipGraphNodeTypes nodeTypes;

    /** Graph calls that refuse the memory nodes of {@code nodeTypes}' numbering. */
    HipGraphs(HipGraphNodeTypes nodeTypes) {
        super(HipRuntime.CALLS, HipHandles.BINDER, SYMBOLS);
        this.nodeTypes = Objects.requireNonNull(nodeTypes, "nodeTypes");
    }

    @Override
    protected int rawLaunchGraph(MemorySegment exec, MemorySegment stream) throws Throwable {
        return (int) hipGraphLaunch.invokeExact(exec, stream);
    }

    /** HIP's update has CUDA 11's signature: the node and the result come back through two out-parameters. */
    @Override
    protected int rawExecUpdate(
            MemorySegment exec, MemorySegment template, MemorySegment result, MemorySegment errorNode)
            throws Throwable {
        return (int) hipGraphExecUpdate.invokeExact(exec, template, errorNode, result);
    }

    @Override
    protected int rawCaptureInfo(
            MemorySegment stream,
            MemorySegment status,
            MemorySegment graph,
            MemorySegment dependencies,
            MemorySegment count)
            throws Throwable {
        return (int)
                hipStreamGetCaptureInfoV2.invokeExact(stream, status, MemorySegment.NULL, graph, dependencies, count);
    }

    @Override
    protected int rawSetCaptureDependencies(MemorySegment stream, MemorySegment nodes, long count) throws Throwable {
        return (int) hipStreamUpdateCaptureDependencies.invokeExact(
                stream, nodes, count, DriverConstants.SET_CAPTURE_DEPENDENCIES);
    }

    @Override
    protected boolean hasCaptureDependencyCalls() {
        return hipStreamGetCaptureInfoV2 != null && hipStreamUpdateCaptureDependencies != null;
    }

    @Override
    protected boolean hasExecUpdate() {
        return hipGraphExecUpdate != null;
    }

    /** A {@code hipKernelNodeParams}: block dims first, then extra (NULL), the function, grid dims, parameters. */
    @Override
    protected MemorySegment kernelNodeParams(
            Arena arena, MemorySegment function, LaunchDims dims, MemorySegment kernelParams) {
        MemorySegment params = arena.allocate(HipNative.KERNEL_NODE_PARAMS); // zeroed: extra NULL, no shared memory
        params.set(JAVA_INT, 0, dims.blockX());
        params.set(JAVA_INT, 4, dims.blockY());
        params.set(JAVA_INT, 8, dims.blockZ());
        params.set(ADDRESS, 24, function);
        params.set(JAVA_INT, 32, dims.gridX());
        params.set(JAVA_INT, 36, dims.gridY());
        params.set(JAVA_INT, 40, dims.gridZ());
        params.set(ADDRESS, 48, kernelParams);
        return params;
    }

    @Override
    public int kernelNodeType() {
        return nodeTypes.kernel();
    }

    @Override
    public void checkRelaunchable(int[] types) {
        nodeTypes.check(types);
    }
}
