package dev.graphrt.driver;

import dev.graphrt.api.LaunchDims;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * A {@link StreamDriver} over a CUDA-like API: the cold calls (create and destroy a stream or an event, query a
 * stream, wait for an event) are made here through handles bound from the backend's {@link StreamSymbols}, and
 * every call's result is checked here; the backend writes only its hot calls, each a raw {@code invokeExact} of a
 * {@code static final} handle returning the result code.
 *
 * <p>Why this split: the cold calls have one C signature in CUDA and HIP, so one implementation serves both; the
 * hot ones (launch, asynchronous copies, event record and query, stream synchronize) must stay
 * {@code invokeExact} calls of constants, which the JIT inlines and which allocate nothing, so they stay in the
 * backend, and this class adds only a monomorphic call and the check around them. Streams are non-blocking and
 * events have timing disabled ({@link DriverConstants}).
 */
public abstract class BoundStreamDriver implements StreamDriver {
    private final DriverNames names;
    private final DriverCalls calls;
    private final GraphCalls graphs;
    private final StreamSymbols symbols;
    private final MethodHandle createStream;
    private final MethodHandle destroyStream;
    private final MethodHandle query;
    private final MethodHandle createEvent;
    private final MethodHandle synchronizeEvent;
    private final MethodHandle destroyEvent;
    private final MethodHandle waitEvent;

    /**
     * Binds the cold {@code symbols} through {@code binder}; results are checked with {@code calls}, the graph
     * calls are {@code graphs}.
     */
    protected BoundStreamDriver(
            DriverNames names, DriverCalls calls, NativeBinder binder, StreamSymbols symbols, GraphCalls graphs) {
        this.names = Objects.requireNonNull(names, "names");
        this.calls = Objects.requireNonNull(calls, "calls");
        this.graphs = Objects.requireNonNull(graphs, "graphs");
        this.symbols = Objects.requireNonNull(symbols, "symbols");
        this.createStream = binder.bind(symbols.createStream());
        this.destroyStream = binder.bind(symbols.destroyStream());
        this.query = binder.bind(symbols.query());
        this.createEvent = binder.bind(symbols.createEvent());
        this.synchronizeEvent = binder.bind(symbols.synchronizeEvent());
        this.destroyEvent = binder.bind(symbols.destroyEvent());
        this.waitEvent = binder.bind(symbols.waitEvent());
    }

    // ---- the backend's hot calls: one raw invokeExact of a static final handle each, returning its code ----

    /** The stream synchronize call's code. */
    protected abstract int rawSynchronize(MemorySegment stream) throws Throwable;

    /** The device-to-device copy call's code (either pointer may be another device's, with unified addressing). */
    protected abstract int rawCopyDeviceToDevice(long dst, long src, long bytes, MemorySegment stream) throws Throwable;

    /** The launch call's code ({@code params} is {@code void**}, no shared memory, no extra). */
    protected abstract int rawLaunch(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream) throws Throwable;

    /**
     * The programmatic dependent launch's code ({@link StreamDriver#launchDependentKernel}); the default is the
     * ordinary launch's, for a driver without the feature.
     */
    protected int rawLaunchDependent(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream) throws Throwable {
        return rawLaunch(function, dims, params, stream);
    }

    /** The name of the call behind {@link #rawLaunchDependent}, for its errors; the ordinary launch's by default. */
    protected String dependentLaunchName() {
        return symbols.launch().name();
    }

    /** The stream-ordered host-to-device copy's code. */
    protected abstract int rawCopyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream)
            throws Throwable;

    /** The stream-ordered device-to-host copy's code. */
    protected abstract int rawCopyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream)
            throws Throwable;

    /** The event record call's code. */
    protected abstract int rawRecordEvent(MemorySegment event, MemorySegment stream) throws Throwable;

    /** The event query call's code: 0 done, 600 not ready, anything else an error. */
    protected abstract int rawQueryEvent(MemorySegment event) throws Throwable;

    // ---- StreamDriver -----------------------------------------------------------------------------

    @Override
    public final DriverNames names() {
        return names;
    }

    @Override
    public final GraphCalls graphs() {
        return graphs;
    }

    @Override
    public final MemorySegment createStream() {
        return calls.addressOut(symbols.createStream().name(), out ->
                (int) createStream.invokeExact(out, DriverConstants.STREAM_NON_BLOCKING));
    }

    @Override
    public final void destroyStream(MemorySegment stream) {
        calls.run(symbols.destroyStream().name(), () -> (int) destroyStream.invokeExact(stream));
    }

    @Override
    public final void synchronizeStream(MemorySegment stream) {
        int rc;
        try { // hot: no lambda
            rc = rawSynchronize(stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.synchronize().name(), t);
        }
        calls.check(symbols.synchronize().name(), rc);
    }

    @Override
    public final int queryStream(MemorySegment stream) {
        return DriverCalls.raw(symbols.query().name(), () -> (int) query.invokeExact(stream));
    }

    @Override
    public final void launchKernel(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream) {
        launch(function, dims, params, stream, false);
    }

    @Override
    public final void launchDependentKernel(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream) {
        launch(function, dims, params, stream, true);
    }

    /** Either launch, its result checked under the name of the call it made. */
    private void launch(
            MemorySegment function, LaunchDims dims, MemorySegment params, MemorySegment stream, boolean dependent) {
        int rc;
        try { // hot: no lambda
            rc = dependent
                    ? rawLaunchDependent(function, dims, params, stream)
                    : rawLaunch(function, dims, params, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(
                    dependent ? dependentLaunchName() : symbols.launch().name(), t);
        }
        calls.check(dependent ? dependentLaunchName() : symbols.launch().name(), rc);
    }

    @Override
    public final void copyHostToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        int rc;
        try { // hot: no lambda
            rc = rawCopyToDevice(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.copyToDevice().name(), t);
        }
        calls.check(symbols.copyToDevice().name(), rc);
    }

    @Override
    public final void copyDeviceToDevice(long dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = rawCopyDeviceToDevice(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.copyDeviceToDevice().name(), t);
        }
        calls.check(symbols.copyDeviceToDevice().name(), rc);
    }

    @Override
    public final void copyDeviceToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = rawCopyToHost(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.copyToHost().name(), t);
        }
        calls.check(symbols.copyToHost().name(), rc);
    }

    @Override
    public final MemorySegment createEvent() {
        return calls.addressOut(symbols.createEvent().name(), out ->
                (int) createEvent.invokeExact(out, DriverConstants.EVENT_DISABLE_TIMING));
    }

    @Override
    public final void recordEvent(MemorySegment event, MemorySegment stream) {
        int rc;
        try { // hot: no lambda
            rc = rawRecordEvent(event, stream);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.recordEvent().name(), t);
        }
        calls.check(symbols.recordEvent().name(), rc);
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    @Override
    public final boolean queryEvent(MemorySegment event) {
        int rc;
        try { // hot: no lambda
            rc = rawQueryEvent(event);
        } catch (Throwable t) {
            throw DriverCalls.unexpected(symbols.queryEvent().name(), t);
        }
        return calls.ready(symbols.queryEvent().name(), rc);
    }

    @Override
    public final void synchronizeEvent(MemorySegment event) {
        calls.run(symbols.synchronizeEvent().name(), () -> (int) synchronizeEvent.invokeExact(event));
    }

    @Override
    public final void waitEvent(MemorySegment stream, MemorySegment event) {
        calls.run(symbols.waitEvent().name(), () -> (int) waitEvent.invokeExact(stream, event, 0));
    }

    @Override
    public final void destroyEvent(MemorySegment event) {
        calls.run(symbols.destroyEvent().name(), () -> (int) destroyEvent.invokeExact(event));
    }
}
