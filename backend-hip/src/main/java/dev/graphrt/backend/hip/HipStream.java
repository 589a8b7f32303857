package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.hipEventQuery;
import static dev.graphrt.backend.hip.HipHandles.hipEventRecord;
import static dev.graphrt.backend.hip.HipHandles.hipMemcpyDtoHAsync;
import static dev.graphrt.backend.hip.HipHandles.hipMemcpyHtoDAsync;
import static dev.graphrt.backend.hip.HipHandles.hipModuleLaunchKernel;
import static dev.graphrt.backend.hip.HipHandles.hipStreamSynchronize;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.BoundStreamDriver;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.StreamSymbols;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The HIP runtime's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: the cold ones are made
 * by {@link BoundStreamDriver} through the symbols named here; the graph calls are {@link HipGraphs}'. Streams
 * are {@code hipStreamNonBlocking} (never the null stream); fence events have timing disabled.
 *
 * <p>Where it differs from cuda: the device, not a context, is made current ({@code hipSetDevice}); device
 * pointers are {@code void*}, passed as {@link MemorySegment#ofAddress} (which the JIT does not allocate); and
 * pinned staging memory is freed only when no capture of the backend runs, also at close, because ROCm's
 * {@code hipHostFree} synchronises the whole device and would invalidate another stream's capture. The hot calls
 * are written here, each a plain {@code invokeExact} of a {@code static final} {@link HipHandles} handle.
 */
final class HipStream extends BoundStreamDriver {
    static final DriverNames NAMES = new DriverNames("hip", "hip", HipRuntime.ERRORS);
    private static final StreamSymbols SYMBOLS = new StreamSymbols(Symbol.hipStreamCreateWithFlags,
            Symbol.hipStreamDestroy, Symbol.hipStreamSynchronize, Symbol.hipStreamQuery, Symbol.hipModuleLaunchKernel,
            Symbol.hipMemcpyHtoDAsync, Symbol.hipMemcpyDtoHAsync, Symbol.hipEventCreateWithFlags, Symbol.hipEventRecord,
            Symbol.hipEventQuery, Symbol.hipEventSynchronize, Symbol.hipEventDestroy);

    private final HipDevice device;
    private final HipGraphs graphs;

    /**
     * The stream calls made with {@code device} current.
     *
     * @param graphs the graph calls in this runtime's numbering
     */
    HipStream(HipDevice device, HipGraphs graphs) {
        super(HipRuntime.CALLS, HipHandles.BINDER, SYMBOLS);
        this.device = Objects.requireNonNull(device, "device");
        this.graphs = Objects.requireNonNull(graphs, "graphs");
    }

    @Override
    public DriverNames names() {
        return NAMES;
    }

    @Override
    public void makeCurrent() {
        device.makeCurrent();
    }

    @Override
    public boolean hostFreeSynchronizes() {
        return true;
    }

    @Override
    public GraphCalls graphs() {
        return graphs;
    }

    @Override
    protected int rawSynchronize(MemorySegment stream) throws Throwable {
        return (int) hipStreamSynchronize.invokeExact(stream);
    }

    @Override
    protected int rawLaunch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream)
            throws Throwable {
        return (int) hipModuleLaunchKernel.invokeExact(function, d.gridX(), d.gridY(), d.gridZ(), d.blockX(),
                d.blockY(), d.blockZ(), 0, stream, params, MemorySegment.NULL);
    }

    @Override
    protected int rawCopyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) throws Throwable {
        return (int) hipMemcpyHtoDAsync.invokeExact(MemorySegment.ofAddress(dst), src, bytes, stream);
    }

    @Override
    protected int rawCopyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) throws Throwable {
        return (int) hipMemcpyDtoHAsync.invokeExact(dst, MemorySegment.ofAddress(src), bytes, stream);
    }

    @Override
    protected int rawRecordEvent(MemorySegment event, MemorySegment stream) throws Throwable {
        return (int) hipEventRecord.invokeExact(event, stream);
    }

    @Override
    protected int rawQueryEvent(MemorySegment event) throws Throwable {
        return (int) hipEventQuery.invokeExact(event);
    }
}
