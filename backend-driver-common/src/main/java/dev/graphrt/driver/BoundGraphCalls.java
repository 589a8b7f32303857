package dev.graphrt.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The {@link GraphCalls} of a CUDA-like API: capture, node listing, instantiation (flags 0), upload, DOT export
 * and destruction are made here through handles bound from the backend's {@link GraphSymbols}, each result
 * checked; the backend writes its graph launch (a raw {@code invokeExact} of a {@code static final} handle, the
 * replay's hot path) and its rule for which nodes forbid a relaunch.
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
    }

    /** The graph launch's code: one raw {@code invokeExact} of the backend's {@code static final} handle. */
    protected abstract int rawLaunchGraph(MemorySegment exec, MemorySegment stream) throws Throwable;

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
    public final int[] nodeTypes(MemorySegment template) {
        return calls.graphNodeTypes(template, symbols.getNodes().name(), getNodes, symbols.nodeGetType().name(),
                nodeGetType);
    }

    @Override
    public final MemorySegment instantiate(MemorySegment template) {
        return calls.addressOut(symbols.instantiate().name(),
                out -> (int) instantiate.invokeExact(out, template, DriverConstants.GRAPH_INSTANTIATE_FLAGS));
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
            throw new IllegalStateException("the library has no " + symbols.debugDotPrint().name());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            calls.run(symbols.debugDotPrint().name(), () -> (int) debugDotPrint.invokeExact(template, cPath,
                    DriverConstants.GRAPH_DEBUG_DOT_FLAGS_DEFAULT));
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

    @Override
    public final void destroyExec(MemorySegment exec) {
        calls.run(symbols.execDestroy().name(), () -> (int) execDestroy.invokeExact(exec));
    }
}
