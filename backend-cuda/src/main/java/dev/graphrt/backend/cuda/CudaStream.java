package dev.graphrt.backend.cuda;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.driver.CaptureAwareReleases;
import dev.graphrt.driver.CapturedHostCopies;
import dev.graphrt.driver.EventFences;
import dev.graphrt.driver.GraphCapture;
import dev.graphrt.driver.GraphDriver;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.KernelParameterBlock;
import dev.graphrt.driver.PinnedHostMemory;
import dev.graphrt.driver.WriteStaging;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One non-blocking CUDA stream ({@code CU_STREAM_NON_BLOCKING}: never the legacy stream, so synchronous
 * copies elsewhere do not touch it while it captures) and its capture hooks.
 *
 * <p>Hot paths allocate nothing: a launch refills the stream's {@link KernelParameterBlock}; a write is
 * bump-allocated into the {@link WriteStaging} ring; fences come from a pool of recycled events. While a
 * capture is open, writes are staged into graph-owned pinned memory ({@link CapturedHostCopies}) instead,
 * so the recorded memcpy nodes replay the capture-time bytes for the graph's whole life.
 *
 * <p>The core serialises calls per stream and never calls a host-synchronising method while this stream
 * records, so this class keeps no locks of its own; it makes the backend's context current on every
 * entry because the calling thread may differ from call to call.
 */
final class CudaStream implements BackendStream {
    private static final Logger LOG = LoggerFactory.getLogger(CudaStream.class);
    /** Largest pinned read buffer; bigger reads are copied through it piece by piece. */
    static final long READ_CHUNK_BYTES = 4L << 20;
    private static final long MIN_READ_BUFFER = 64L << 10;

    private final long id;
    private final CudaContext context;
    private final CaptureAwareReleases releases;
    private final PinnedHostMemory pinned;
    private final MemorySegment stream;
    private final Arena arena = Arena.ofShared();
    private final KernelParameterBlock parameters;
    private final EventFences<MemorySegment> fences;
    private final WriteStaging writes;
    private final WriteStaging.Copier asyncCopy;
    private final GraphCapture captures;

    private MemorySegment readBuffer;
    private boolean closed;

    CudaStream(long id, CudaContext context, CaptureAwareReleases releases) {
        this.id = id;
        this.context = context;
        this.releases = releases;
        this.pinned = new CudaPinnedMemory(context);
        context.makeCurrent();
        this.stream = CudaDriver.streamCreate(CudaNative.CU_STREAM_NON_BLOCKING);
        this.parameters = new KernelParameterBlock(arena, CudaAllocation::address);
        this.fences = new EventFences<>(new StreamEvents(stream));
        this.writes = new WriteStaging(pinned, fences);
        this.asyncCopy = (dst, staged) -> CudaDriver.memcpyHtoDAsync(dst, staged, staged.byteSize(), stream);
        this.captures = new GraphCapture(new StreamGraphs(context, stream), releases, pinned, LOG, id);
        LOG.debug("cuda stream {}: created", id);
    }

    // ---- ordinary work ---------------------------------------------------------------------------------

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        ensureOpen();
        if (!(kernel instanceof CudaKernel cuda)) {
            throw new IllegalArgumentException("kernel " + kernel + " was not compiled by the cuda backend");
        }
        int expected = cuda.parameterCount();
        if (expected >= 0 && expected != bindings.parameterCount()) {
            throw new IllegalArgumentException("kernel '" + cuda.entryPoint() + "' takes " + expected
                    + " parameters, but the launch binds " + bindings.buffers().size() + " buffer(s)"
                    + (bindings.hasInfo() ? " and an info buffer" : "") + " (docs/kernels.md)");
        }
        context.makeCurrent();
        MemorySegment packed = parameters.pack(bindings);
        CudaDriver.launchKernel(cuda.function(), dims.gridX(), dims.gridY(), dims.gridZ(),
                dims.blockX(), dims.blockY(), dims.blockZ(), stream, packed);
    }

    @Override
    public void write(DeviceSlice dst, MemorySegment src) {
        ensureOpen();
        long bytes = src.byteSize();
        if (bytes > dst.length()) {
            throw new IllegalArgumentException("write of " + bytes + " bytes into a slice of " + dst.length());
        }
        if (bytes == 0) {
            return;
        }
        long address = CudaAllocation.address(dst);
        context.makeCurrent();
        if (captures.isCapturing()) {
            MemorySegment staged = captures.stage(src);
            CudaDriver.memcpyHtoDAsync(address, staged, bytes, stream);
            return;
        }
        captures.noteWarmupWrite(bytes);
        writes.write(address, src, asyncCopy);
    }

    @Override
    public void read(DeviceSlice src, MemorySegment dst) {
        ensureOpen();
        long bytes = dst.byteSize();
        if (bytes > src.length()) {
            throw new IllegalArgumentException("read of " + bytes + " bytes from a slice of " + src.length());
        }
        long address = CudaAllocation.address(src);
        context.makeCurrent();
        if (bytes == 0) {
            synchronize();
            return;
        }
        long done = 0;
        while (done < bytes) {
            long piece = Math.min(bytes - done, READ_CHUNK_BYTES);
            MemorySegment buffer = readBuffer(piece);
            CudaDriver.memcpyDtoHAsync(buffer, address + done, piece, stream);
            CudaDriver.streamSynchronize(stream);
            MemorySegment.copy(buffer, 0, dst, done, piece);
            done += piece;
        }
        allWorkFinished();
    }

    @Override
    public Fence recordFence() {
        ensureOpen();
        context.makeCurrent();
        return fences.record();
    }

    @Override
    public boolean isComplete(Fence fence) {
        context.makeCurrent();
        return fences.isComplete(fence);
    }

    @Override
    public void await(Fence fence) {
        context.makeCurrent();
        fences.await(fence);
    }

    @Override
    public void synchronize() {
        ensureOpen();
        context.makeCurrent();
        CudaDriver.streamSynchronize(stream);
        allWorkFinished();
    }

    /** Asynchronous failures of finished work, found by {@code cuStreamQuery} without waiting. */
    @Override
    public List<Throwable> drainErrors() {
        ensureOpen();
        context.makeCurrent();
        int rc = CudaDriver.tryStreamQuery(stream);
        if (rc == CudaNative.CUDA_SUCCESS || rc == CudaNative.CUDA_ERROR_NOT_READY) {
            return List.of();
        }
        return List.of(CudaDriver.ERRORS.toException("cuStreamQuery", rc));
    }

    // ---- capture hooks: the orchestration is GraphCapture's ----------------------------------------------

    @Override
    public void onPrepare() {
        ensureOpen();
        captures.onPrepare();
    }

    @Override
    public void openCapture(CaptureMode mode) {
        Objects.requireNonNull(mode, "mode");
        ensureOpen();
        captures.open(mode);
    }

    @Override
    public BackendGraph closeCapture() {
        return captures.close();
    }

    @Override
    public void abortCapture() {
        captures.abort(closed);
    }

    @Override
    public void replay(BackendGraph graph) {
        ensureOpen();
        captures.replay(graph);
    }

    @Override
    public void destroy(BackendGraph graph) {
        captures.destroy(graph);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        RuntimeException failure = null;
        if (captures.isCapturing()) {
            try {
                abortCapture();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        closed = true;
        try {
            context.makeCurrent();
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        try {
            fences.close();
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        try {
            writes.close();
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        if (readBuffer != null) {
            try {
                pinned.free(readBuffer);
            } catch (RuntimeException e) {
                failure = suppressed(failure, e);
            }
            readBuffer = null;
        }
        try {
            CudaDriver.streamDestroy(stream);
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        arena.close();
        LOG.debug("cuda stream {}: closed", id);
        if (failure != null) {
            throw failure;
        }
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "CudaStream[" + id + "]";
    }

    // ---- internals -------------------------------------------------------------------------------------

    private MemorySegment readBuffer(long bytes) {
        if (readBuffer == null || readBuffer.byteSize() < bytes) {
            long size = Math.min(READ_CHUNK_BYTES, Math.max(MIN_READ_BUFFER, Long.highestOneBit(bytes - 1) << 1));
            MemorySegment grown = pinned.allocate(Math.max(size, bytes));
            if (readBuffer != null) {
                pinned.free(readBuffer);
            }
            readBuffer = grown;
        }
        return readBuffer;
    }

    /** After a full synchronisation: every fence and every staged write finished. */
    private void allWorkFinished() {
        fences.allComplete();
        writes.allComplete();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("cuda stream " + id + " is closed");
        }
    }

    private static RuntimeException suppressed(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Fence events of this stream: timing disabled, recorded on this stream. */
    private record StreamEvents(MemorySegment stream) implements EventFences.Events<MemorySegment> {
        @Override
        public MemorySegment create() {
            return CudaDriver.eventCreate(CudaNative.CU_EVENT_DISABLE_TIMING);
        }

        @Override
        public void record(MemorySegment event) {
            CudaDriver.eventRecord(event, stream);
        }

        @Override
        public boolean query(MemorySegment event) {
            return CudaDriver.eventQuery(event);
        }

        @Override
        public void synchronize(MemorySegment event) {
            CudaDriver.eventSynchronize(event);
        }

        @Override
        public void destroy(MemorySegment event) {
            CudaDriver.eventDestroy(event);
        }
    }

    /** The driver's graph calls on this stream, for {@link GraphCapture}: each one {@code CudaDriver} call. */
    private record StreamGraphs(CudaContext context, MemorySegment stream) implements GraphDriver {
        @Override
        public String backend() {
            return "cuda";
        }

        @Override
        public String callPrefix() {
            return "cu";
        }

        @Override
        public HardwareGraphErrors errors() {
            return CudaDriver.ERRORS;
        }

        @Override
        public void makeCurrent() {
            context.makeCurrent();
        }

        @Override
        public void beginCapture(int mode) {
            CudaDriver.streamBeginCapture(stream, mode);
        }

        @Override
        public int tryEndCapture(MemorySegment graphOut) {
            return CudaDriver.tryStreamEndCapture(stream, graphOut);
        }

        @Override
        public boolean isCapturing() {
            return CudaDriver.streamCaptureStatus(stream) != CudaNative.CU_STREAM_CAPTURE_STATUS_NONE;
        }

        @Override
        public OptionalLong captureId() {
            return OptionalLong.of(CudaDriver.captureId(stream));
        }

        @Override
        public int[] nodeTypes(MemorySegment template) {
            return CudaDriver.graphNodeTypes(template);
        }

        @Override
        public void checkRelaunchable(int[] types) {
            int allocations = 0;
            int frees = 0;
            for (int type : types) {
                if (type == CudaNative.CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
                    allocations++;
                } else if (type == CudaNative.CU_GRAPH_NODE_TYPE_MEM_FREE) {
                    frees++;
                }
            }
            if (allocations + frees > 0) {
                throw new GraphNotRelaunchableException("the captured graph holds " + allocations
                        + " memory allocation node(s) and " + frees + " memory free node(s) (stream-ordered "
                        + "cuMemAllocAsync/cuMemFreeAsync inside the capture); such a graph cannot be relaunched "
                        + "safely: allocate before beginCapture() (during the warm-up) instead");
            }
        }

        @Override
        public MemorySegment instantiate(MemorySegment template) {
            return CudaDriver.graphInstantiate(template);
        }

        @Override
        public void upload(MemorySegment exec) {
            CudaDriver.graphUpload(exec, stream);
        }

        @Override
        public void printDot(MemorySegment template, String path) {
            CudaDriver.graphDebugDotPrint(template, path, CudaNative.CU_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
        }

        @Override
        public void destroyTemplate(MemorySegment template) {
            CudaDriver.graphDestroy(template);
        }

        @Override
        public void launch(MemorySegment exec) {
            CudaDriver.graphLaunch(exec, stream);
        }

        @Override
        public void destroyExec(MemorySegment exec) {
            CudaDriver.graphExecDestroy(exec);
        }
    }
}
