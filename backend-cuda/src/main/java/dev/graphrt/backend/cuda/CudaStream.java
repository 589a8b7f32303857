package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.BoundStreamDriver;
import dev.graphrt.driver.PeerAccess;
import dev.graphrt.driver.PhaseMarkers;
import dev.graphrt.driver.StreamDriver;
import dev.graphrt.driver.StreamSymbols;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * The CUDA driver's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: the cold ones are made
 * by {@link BoundStreamDriver} through the symbols named here; the graph calls are {@link CudaGraphs}'. Streams
 * are {@code CU_STREAM_NON_BLOCKING} (never the legacy stream, so synchronous copies elsewhere do not touch them
 * while they capture); fence events have timing disabled.
 *
 * <p>The hot calls (stream synchronize, launch, async copies, event record and query) are written here, each a
 * plain {@code invokeExact} of one of its own {@code static final} handles, which the JIT inlines and which
 * allocates nothing; {@code CUdeviceptr} is a 64-bit integer, passed as it is.
 */
final class CudaStream extends BoundStreamDriver {
    // the raw handles of the calls made here; static final, so the JIT inlines each downcall
    private static final MethodHandle cuStreamSynchronize = CudaHandles.BINDER.bind(Symbol.cuStreamSynchronize);
    private static final MethodHandle cuLaunchKernel = CudaHandles.BINDER.bind(Symbol.cuLaunchKernel);
    // optional (CUDA 11.8+): null where the driver lacks it
    private static final MethodHandle cuLaunchKernelEx = CudaHandles.BINDER.bind(Symbol.cuLaunchKernelEx);
    private static final long GRID_X = CudaNative.LAUNCH_CONFIG.byteOffset(PathElement.groupElement("gridDimX"));
    private static final long STREAM = CudaNative.LAUNCH_CONFIG.byteOffset(PathElement.groupElement("hStream"));
    private static final MethodHandle cuMemcpyHtoDAsync = CudaHandles.BINDER.bind(Symbol.cuMemcpyHtoDAsync_v2);
    private static final MethodHandle cuMemcpyDtoHAsync = CudaHandles.BINDER.bind(Symbol.cuMemcpyDtoHAsync_v2);
    private static final MethodHandle cuMemcpyAsync = CudaHandles.BINDER.bind(Symbol.cuMemcpyAsync);
    private static final MethodHandle cuEventRecord = CudaHandles.BINDER.bind(Symbol.cuEventRecord);
    private static final MethodHandle cuEventQuery = CudaHandles.BINDER.bind(Symbol.cuEventQuery);
    private static final StreamSymbols SYMBOLS = new StreamSymbols(
            Symbol.cuStreamCreate,
            Symbol.cuStreamDestroy_v2,
            Symbol.cuStreamSynchronize,
            Symbol.cuStreamQuery,
            Symbol.cuLaunchKernel,
            Symbol.cuMemcpyHtoDAsync_v2,
            Symbol.cuMemcpyDtoHAsync_v2,
            Symbol.cuEventCreate,
            Symbol.cuEventRecord,
            Symbol.cuEventQuery,
            Symbol.cuEventSynchronize,
            Symbol.cuEventDestroy_v2,
            Symbol.cuStreamWaitEvent,
            Symbol.cuMemcpyAsync);

    /**
     * Each launching thread's {@code CUlaunchConfig} with its one attribute (programmatic stream serialization
     * allowed) right after it: filled per launch, so a dependent launch allocates nothing after a thread's first.
     */
    private final ThreadLocal<MemorySegment> launchConfigs = ThreadLocal.withInitial(CudaStream::newLaunchConfig);

    private final CudaContext context;
    private final PhaseMarkers markers;
    private final PeerAccess peers =
            new PeerAccess(this, CudaDriver.CALLS, "cuDeviceCanAccessPeer", "cuCtxEnablePeerAccess");

    /** The stream calls made with {@code context} current, their phases marked by {@code markers} (NVTX). */
    CudaStream(CudaContext context, PhaseMarkers markers) {
        super(CudaDriver.NAMES, CudaDriver.CALLS, CudaHandles.BINDER, SYMBOLS, new CudaGraphs());
        this.context = Objects.requireNonNull(context, "context");
        this.markers = Objects.requireNonNull(markers, "markers");
    }

    @Override
    public PhaseMarkers markers() {
        return markers;
    }

    @Override
    public void makeCurrent() {
        context.makeCurrent();
    }

    @Override
    protected int rawSynchronize(MemorySegment stream) throws Throwable {
        return (int) cuStreamSynchronize.invokeExact(stream);
    }

    @Override
    protected int rawLaunch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream)
            throws Throwable {
        return (int) cuLaunchKernel.invokeExact(
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

    /** Whether the driver has {@code cuLaunchKernelEx} (CUDA 11.8+), which programmatic dependent launch needs. */
    static boolean launchesDependents() {
        return cuLaunchKernelEx != null;
    }

    /**
     * {@code cuLaunchKernelEx} with {@code CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION}: the kernel may
     * start before the work ahead of it on the stream has finished; inside a capture the driver records a
     * programmatic edge. Only kernels that opted in come here, and only where the backend declared the capability.
     */
    @Override
    protected int rawLaunchDependent(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream)
            throws Throwable {
        MemorySegment config = launchConfigs.get();
        config.set(JAVA_INT, GRID_X, d.gridX());
        config.set(JAVA_INT, GRID_X + 4, d.gridY());
        config.set(JAVA_INT, GRID_X + 8, d.gridZ());
        config.set(JAVA_INT, GRID_X + 12, d.blockX());
        config.set(JAVA_INT, GRID_X + 16, d.blockY());
        config.set(JAVA_INT, GRID_X + 20, d.blockZ());
        config.set(ADDRESS, STREAM, stream);
        return (int) cuLaunchKernelEx.invokeExact(config, function, params, MemorySegment.NULL);
    }

    @Override
    protected String dependentLaunchName() {
        return Symbol.cuLaunchKernelEx.name();
    }

    /** A config with no shared memory and one attribute, programmatic stream serialization allowed. */
    private static MemorySegment newLaunchConfig() {
        long configBytes = CudaNative.LAUNCH_CONFIG.byteSize();
        MemorySegment block = Arena.ofAuto().allocate(configBytes + CudaNative.LAUNCH_ATTRIBUTE.byteSize(), Long.BYTES);
        MemorySegment attribute = block.asSlice(configBytes);
        attribute.set(JAVA_INT, 0, CudaNative.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
        attribute.set(JAVA_INT, CudaNative.LAUNCH_ATTRIBUTE.byteOffset(PathElement.groupElement("value")), 1);
        block.set(ADDRESS, CudaNative.LAUNCH_CONFIG.byteOffset(PathElement.groupElement("attrs")), attribute);
        block.set(JAVA_INT, CudaNative.LAUNCH_CONFIG.byteOffset(PathElement.groupElement("numAttrs")), 1);
        return block;
    }

    @Override
    protected int rawCopyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) throws Throwable {
        return (int) cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream);
    }

    @Override
    protected int rawCopyDeviceToDevice(long dst, long src, long bytes, MemorySegment stream) throws Throwable {
        return (int) cuMemcpyAsync.invokeExact(dst, src, bytes, stream);
    }

    /** Peer access from this device's context to {@code peer}'s, where {@code cuDeviceCanAccessPeer} allows it. */
    @Override
    public boolean enablePeerAccess(StreamDriver peer) {
        return peer instanceof CudaStream other && context.reaches(peers, other, other.context);
    }

    @Override
    protected int rawCopyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) throws Throwable {
        return (int) cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream);
    }

    @Override
    protected int rawRecordEvent(MemorySegment event, MemorySegment stream) throws Throwable {
        return (int) cuEventRecord.invokeExact(event, stream);
    }

    @Override
    protected int rawQueryEvent(MemorySegment event) throws Throwable {
        return (int) cuEventQuery.invokeExact(event);
    }
}
