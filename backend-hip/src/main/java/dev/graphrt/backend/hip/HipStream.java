package dev.graphrt.backend.hip;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.BoundStreamDriver;
import dev.graphrt.driver.PeerAccess;
import dev.graphrt.driver.StreamDriver;
import dev.graphrt.driver.StreamSymbols;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
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
 * are written here, each a plain {@code invokeExact} of one of its own {@code static final} handles.
 */
final class HipStream extends BoundStreamDriver {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle hipStreamSynchronize = HipHandles.BINDER.bind(Symbol.hipStreamSynchronize);
    private static final MethodHandle hipModuleLaunchKernel = HipHandles.BINDER.bind(Symbol.hipModuleLaunchKernel);
    private static final MethodHandle hipMemcpyHtoDAsync = HipHandles.BINDER.bind(Symbol.hipMemcpyHtoDAsync);
    private static final MethodHandle hipMemcpyDtoHAsync = HipHandles.BINDER.bind(Symbol.hipMemcpyDtoHAsync);
    private static final MethodHandle hipMemcpyDtoDAsync = HipHandles.BINDER.bind(Symbol.hipMemcpyDtoDAsync);
    private static final MethodHandle hipDeviceCanAccessPeer = HipHandles.BINDER.bind(Symbol.hipDeviceCanAccessPeer);
    private static final MethodHandle hipDeviceEnablePeerAccess =
            HipHandles.BINDER.bind(Symbol.hipDeviceEnablePeerAccess);
    private static final MethodHandle hipEventRecord = HipHandles.BINDER.bind(Symbol.hipEventRecord);
    private static final MethodHandle hipEventQuery = HipHandles.BINDER.bind(Symbol.hipEventQuery);
    private static final StreamSymbols SYMBOLS = new StreamSymbols(
            Symbol.hipStreamCreateWithFlags,
            Symbol.hipStreamDestroy,
            Symbol.hipStreamSynchronize,
            Symbol.hipStreamQuery,
            Symbol.hipModuleLaunchKernel,
            Symbol.hipMemcpyHtoDAsync,
            Symbol.hipMemcpyDtoHAsync,
            Symbol.hipEventCreateWithFlags,
            Symbol.hipEventRecord,
            Symbol.hipEventQuery,
            Symbol.hipEventSynchronize,
            Symbol.hipEventDestroy,
            Symbol.hipStreamWaitEvent,
            Symbol.hipMemcpyDtoDAsync);

    private final HipDevice device;
    private final PeerAccess peers =
            new PeerAccess(this, HipRuntime.CALLS, "hipDeviceCanAccessPeer", "hipDeviceEnablePeerAccess");

    /**
     * The stream calls made with {@code device} current.
     *
     * @param graphs the graph calls in this runtime's numbering
     */
    HipStream(HipDevice device, HipGraphs graphs) {
        super(HipRuntime.NAMES, HipRuntime.CALLS, HipHandles.BINDER, SYMBOLS, graphs);
        this.device = Objects.requireNonNull(device, "device");
    }

    @Override
    public void makeCurrent() {
        device.makeCurrent();
    }

    @Override
    protected int rawCopyDeviceToDevice(long dst, long src, long bytes, MemorySegment stream) throws Throwable {
        return (int) hipMemcpyDtoDAsync.invokeExact(
                MemorySegment.ofAddress(dst), MemorySegment.ofAddress(src), bytes, stream);
    }

    /** Peer access from this device to {@code peer}'s, where {@code hipDeviceCanAccessPeer} allows it. */
    @Override
    public boolean enablePeerAccess(StreamDriver peer) {
        if (!(peer instanceof HipStream other)) {
            return false;
        }
        int ordinal = device.ordinal();
        int peerOrdinal = other.device.ordinal();
        return peers.reaches(
                peer,
                peerOrdinal == ordinal,
                out -> (int) hipDeviceCanAccessPeer.invokeExact(out, ordinal, peerOrdinal),
                () -> (int) hipDeviceEnablePeerAccess.invokeExact(peerOrdinal, 0));
    }

    @Override
    public boolean hostFreeSynchronizes() {
        return true;
    }

    @Override
    protected int rawSynchronize(MemorySegment stream) throws Throwable {
        return (int) hipStreamSynchronize.invokeExact(stream);
    }

    @Override
    protected int rawLaunch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream)
            throws Throwable {
        return (int) hipModuleLaunchKernel.invokeExact(
                function,
                d.gridX(),
                d.gridY(),
                d.gridZ(),
                d.blockX(),
                d.blockY(),
                d.blockZ(),
                0,
                stream,
                params,
                MemorySegment.NULL);
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
