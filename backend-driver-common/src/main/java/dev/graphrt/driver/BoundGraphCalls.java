package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.LaunchDims;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link GraphCalls} of a CUDA-like API: capture, node listing, instantiation (flags 0), upload, DOT export
 * and destruction are made here through handles bound from the backend's {@link GraphSymbols}, each result
 * checked; the backend writes its graph launch (a raw {@code invokeExact} of a {@code static final} handle, the
 * replay's hot path) and its rule for which nodes forbid a relaunch.
 *
 * <p>The two update calls are the backend's ({@link #execUpdate}, {@link #setKernelNode}): CUDA 12 and HIP differ in
 * their signatures and parameter structs.
 *
 * <p>Why shared: these calls have one C signature in CUDA and HIP, so one implementation serves both. An optional
 * upload the library lacks is skipped (the first replay then uploads), an optional DOT export reports
 * {@link #printsDot()} false.
 */
public abstract class BoundGraphCalls implements GraphCalls {
    private final DriverCalls calls;
    private final GraphSymbols symbols;
    private final MethodHandle beginCapture;
    private final MethodHandle endCapture;
    private final MethodHandle isCapturing;
    private final MethodHandle getNodes;
    private final MethodHandle nodeGetType;
    private final MethodHandle instantiate;
    private final MethodHandle upload;
    private final MethodHandle debugDotPrint;
    private final MethodHandle destroy;
    private final MethodHandle execDestroy;
    private final MethodHandle execKernelNodeSetParams;
    private final MethodHandle addChildGraphNode;

    /** Binds {@code symbols} (all but the launch) through {@code binder}; results are checked with {@code calls}. */
    protected BoundGraphCalls(DriverCalls calls, NativeBinder binder, GraphSymbols symbols) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.symbols = Objects.requireNonNull(symbols, "symbols");
        this.beginCapture = binder.bind(symbols.beginCapture());
        this.endCapture = binder.bind(symbols.endCapture());
        this.isCapturing = binder.bind(symbols.isCapturing());
        this.getNodes = binder.bind(symbols.getNodes());
        this.nodeGetType = binder.bind(symbols.nodeGetType());
        this.instantiate = binder.bind(symbols.instantiate());
        this.upload = binder.bind(symbols.upload());
        this.debugDotPrint = binder.bind(symbols.debugDotPrint());
        this.destroy = binder.bind(symbols.destroy());
        this.execDestroy = binder.bind(symbols.execDestroy());
        this.execKernelNodeSetParams = binder.bind(symbols.execKernelNodeSetParams());
        this.addChildGraphNode = binder.bind(symbols.addChildGraphNode());
    }

    /** The graph launch's code: one raw {@code invokeExact} of the backend's {@code static final} handle. */
    protected abstract int rawLaunchGraph(MemorySegment exec, MemorySegment stream) throws Throwable;

    /**
     * The executable-graph update's code: one raw call of the backend's handle, storing the driver's update result
     * ({@code int}) at {@code result} and the node it named (or NULL) at {@code errorNode}; returns the result code.
     */
    protected abstract int rawExecUpdate(
            MemorySegment exec, MemorySegment template, MemorySegment result, MemorySegment errorNode) throws Throwable;

    /**
     * The capture info's code: one raw call of the backend's handle storing the capture status ({@code int}) at
     * {@code status}, the capture's graph at {@code graph}, its current dependencies (a {@code const node*}) at
     * {@code dependencies} and their count ({@code size_t}) at {@code count}; returns the result code.
     */
    protected abstract int rawCaptureInfo(
            MemorySegment stream,
            MemorySegment status,
            MemorySegment graph,
            MemorySegment dependencies,
            MemorySegment count)
            throws Throwable;

    /** Replaces the capture's dependencies by the {@code count} nodes at {@code nodes}; returns the result code. */
    protected abstract int rawSetCaptureDependencies(MemorySegment stream, MemorySegment nodes, long count)
            throws Throwable;

    /** Whether the library has the backend's capture-info and capture-dependency calls. */
    protected abstract boolean hasCaptureDependencyCalls();

    @Override
    public final boolean nestsGraphs() {
        return addChildGraphNode != null && hasCaptureDependencyCalls();
    }

    @Override
    public final void addChildToCapture(MemorySegment stream, MemorySegment child) {
        if (!nestsGraphs()) {
            throw new UnsupportedOperationException("the library cannot add a child graph to a capture");
        }
        String call = symbols.addChildGraphNode().name();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment graph = arena.allocate(ADDRESS);
            MemorySegment dependencies = arena.allocate(ADDRESS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            String info = symbols.captureInfo().name();
            calls.check(info, DriverCalls.raw(info, () -> rawCaptureInfo(stream, status, graph, dependencies, count)));
            if (status.get(JAVA_INT, 0) != DriverConstants.CAPTURE_STATUS_ACTIVE) {
                throw new IllegalStateException("the stream is not capturing (status " + status.get(JAVA_INT, 0) + ")");
            }
            MemorySegment node = arena.allocate(ADDRESS);
            MemorySegment capturing = graph.get(ADDRESS, 0);
            MemorySegment deps = dependencies.get(ADDRESS, 0);
            long n = count.get(JAVA_LONG, 0);
            calls.run(call, () -> (int) addChildGraphNode.invokeExact(node, capturing, deps, n, child));
            String update = symbols.updateCaptureDependencies().name();
            calls.check(update, DriverCalls.raw(update, () -> rawSetCaptureDependencies(stream, node, 1L)));
        }
    }

    /** Whether the library has the backend's executable-graph update call. */
    protected abstract boolean hasExecUpdate();

    /** Whether the library has both update calls ({@code GRAPH_UPDATE} is declared only then). */
    @Override
    public final boolean updates() {
        return hasExecUpdate() && execKernelNodeSetParams != null;
    }

    /** The backend's kernel-node params struct for a launch of {@code function}, in {@code arena}. */
    protected abstract MemorySegment kernelNodeParams(
            Arena arena, MemorySegment function, LaunchDims dims, MemorySegment kernelParams);

    /** The checked-call helpers, for a backend's own graph calls. */
    protected final DriverCalls calls() {
        return calls;
    }

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    @Override
    public final void beginCapture(MemorySegment stream, int mode) {
        String call = symbols.beginCapture().name();
        int rc = DriverCalls.raw(call, () -> (int) beginCapture.invokeExact(stream, mode));
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw calls.errors().toBeginCaptureException(call, rc);
        }
    }

    @Override
    public final int tryEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return DriverCalls.raw(symbols.endCapture().name(), () -> (int) endCapture.invokeExact(stream, graphOut));
    }

    /** Whether the stream's capture status is ACTIVE (1) or INVALIDATED (2), not NONE (0). */
    @Override
    public final boolean isCapturing(MemorySegment stream) {
        return calls.intOut(symbols.isCapturing().name(), out -> (int) isCapturing.invokeExact(stream, out))
                != DriverConstants.CAPTURE_STATUS_NONE;
    }

    @Override
    public final int nodeCount(MemorySegment template) {
        return (int) calls.longOut(
                symbols.getNodes().name(), count -> (int) getNodes.invokeExact(template, MemorySegment.NULL, count));
    }

    @Override
    public final int[] nodeTypes(MemorySegment template) {
        return calls.graphNodeTypes(
                template,
                symbols.getNodes().name(),
                getNodes,
                symbols.nodeGetType().name(),
                nodeGetType);
    }

    @Override
    public final DriverCalls.GraphNodes nodes(MemorySegment template) {
        return calls.graphNodes(
                template,
                symbols.getNodes().name(),
                getNodes,
                symbols.nodeGetType().name(),
                nodeGetType);
    }

    @Override
    public final MemorySegment instantiate(MemorySegment template) {
        return calls.addressOut(symbols.instantiate().name(), out ->
                (int) instantiate.invokeExact(out, template, DriverConstants.GRAPH_INSTANTIATE_FLAGS));
    }

    /** Uploads where the library can; where it lacks the (optional) call, the first replay uploads. */
    @Override
    public final void upload(MemorySegment exec, MemorySegment stream) {
        if (upload != null) {
            calls.run(symbols.upload().name(), () -> (int) upload.invokeExact(exec, stream));
        }
    }

    @Override
    public final boolean printsDot() {
        return debugDotPrint != null;
    }

    /** Writes the DOT dump; only called when {@link #printsDot()}. */
    @Override
    public final void printDot(MemorySegment template, String path) {
        if (debugDotPrint == null) {
            throw new IllegalStateException(
                    "the library has no " + symbols.debugDotPrint().name());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            calls.run(symbols.debugDotPrint().name(), () ->
                    (int) debugDotPrint.invokeExact(template, cPath, DriverConstants.GRAPH_DEBUG_DOT_FLAGS_DEFAULT));
        }
    }

    @Override
    public final void destroyTemplate(MemorySegment template) {
        calls.run(symbols.destroy().name(), () -> (int) destroy.invokeExact(template));
    }

    @Override
    public final void launchGraph(MemorySegment exec, MemorySegment stream) {
        int rc;
        try { // hot: no lambda
            rc = rawLaunchGraph(exec, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.launch().name(), t);
        }
        calls.check(symbols.launch().name(), rc);
    }

    /** {@code GraphExecUpdate}: 910 is a refusal (returned), any other failure throws. */
    @Override
    public final Optional<UpdateRefusal> execUpdate(MemorySegment exec, MemorySegment template) {
        String call = symbols.execUpdate().name();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment result = arena.allocate(JAVA_INT);
            MemorySegment errorNode = arena.allocate(ADDRESS);
            errorNode.set(ADDRESS, 0, MemorySegment.NULL);
            int rc = DriverCalls.raw(call, () -> rawExecUpdate(exec, template, result, errorNode));
            if (rc == HardwareGraphErrors.GRAPH_EXEC_UPDATE_FAILURE) {
                return Optional.of(new UpdateRefusal(result.get(JAVA_INT, 0), errorNode.get(ADDRESS, 0)));
            }
            calls.check(call, rc);
            return Optional.empty();
        }
    }

    @Override
    public final void setKernelNode(
            MemorySegment exec,
            MemorySegment node,
            MemorySegment function,
            LaunchDims dims,
            MemorySegment kernelParams) {
        if (execKernelNodeSetParams == null) {
            throw new UnsupportedOperationException(
                    "the library has no " + symbols.execKernelNodeSetParams().name());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = kernelNodeParams(arena, function, dims, kernelParams);
            calls.run(symbols.execKernelNodeSetParams().name(), () ->
                    (int) execKernelNodeSetParams.invokeExact(exec, node, params));
        }
    }

    @Override
    public final void destroyExec(MemorySegment exec) {
        calls.run(symbols.execDestroy().name(), () -> (int) execDestroy.invokeExact(exec));
    }
}
