package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.support.CaptureAwareReleases;
import dev.graphrt.spi.support.CapturedHostCopies;
import dev.graphrt.spi.support.DriverCaptureModes;
import dev.graphrt.spi.support.EventFences;
import dev.graphrt.spi.support.KernelParameterBlock;
import dev.graphrt.spi.support.PinnedHostMemory;
import dev.graphrt.spi.support.WriteStaging;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
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
    /**
     * Most pinned bytes reserved before a capture from what the warm-up wrote; writes beyond it are staged
     * into blocks allocated during the capture (under a RELAXED capture-mode exchange). Caps the cost of
     * large writes made in PREPARE outside the captured step.
     */
    static final long MAX_WRITE_RESERVATION = 16L << 20;

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

    private MemorySegment readBuffer;
    private boolean preparing;
    private long warmupWriteBytes;
    private CapturedHostCopies capture;
    private CaptureMode captureMode;
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
        if (capture != null) {
            MemorySegment staged = capture.stage(src);
            CudaDriver.memcpyHtoDAsync(address, staged, bytes, stream);
            return;
        }
        if (preparing) {
            warmupWriteBytes += (bytes + CapturedHostCopies.ALIGNMENT - 1) & -CapturedHostCopies.ALIGNMENT;
        }
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

    // ---- capture hooks ---------------------------------------------------------------------------------

    @Override
    public void onPrepare() {
        ensureOpen();
        preparing = true;
        warmupWriteBytes = 0;
    }

    @Override
    public void openCapture(CaptureMode mode) {
        Objects.requireNonNull(mode, "mode");
        ensureOpen();
        if (capture != null) {
            throw new GraphStateException("openCapture: cuda stream " + id + " is already capturing; end or cancel "
                    + "that capture before beginning another");
        }
        context.makeCurrent();
        CapturedHostCopies copies = new CapturedHostCopies(pinned);
        // before the capture begins, so the usual case allocates no host memory inside it
        copies.reserve(preparing ? Math.min(warmupWriteBytes, MAX_WRITE_RESERVATION) : 0);
        preparing = false;
        warmupWriteBytes = 0;
        releases.captureStarting();
        try {
            CudaDriver.streamBeginCapture(stream, DriverCaptureModes.code(mode));
        } catch (RuntimeException e) {
            releases.captureEnded();
            releaseHostCopies(copies, e);
            throw e;
        }
        capture = copies;
        captureMode = mode;
        if (LOG.isDebugEnabled()) {
            LOG.debug("cuda stream {}: capture begun ({} mode, driver capture id {}, {} bytes reserved for writes)",
                    id, mode, CudaDriver.captureId(stream), copies.heldBytes());
        }
    }

    @Override
    public BackendGraph closeCapture() {
        CapturedHostCopies copies = capture;
        capture = null;
        RuntimeException failure = null;
        MemorySegment template = MemorySegment.NULL;
        CudaGraph sealed = null;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            context.makeCurrent();
            int rc = CudaDriver.tryStreamEndCapture(stream, graphOut); // always: a failure below never leaves it capturing
            template = graphOut.get(ADDRESS, 0);
            if (rc != CudaNative.CUDA_SUCCESS) {
                throw CudaDriver.ERRORS.toException("cuStreamEndCapture", rc);
            }
            if (template.equals(MemorySegment.NULL)) {
                throw new DriverException("cuStreamEndCapture", rc, CudaDriver.resultName(rc), "no graph returned");
            }
            sealed = seal(template, copies);
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            if (!template.equals(MemorySegment.NULL)) {
                try {
                    CudaDriver.graphDestroy(template);
                } catch (RuntimeException e) {
                    if (failure != null) {
                        failure.addSuppressed(e);
                    } else {
                        LOG.warn("cuda stream {}: cuGraphDestroy of the capture template failed", id, e);
                    }
                }
            }
            if (copies != null) {
                releases.captureEnded();
            }
            if (failure != null && copies != null) {
                releaseHostCopies(copies, failure);
            }
        }
        if (failure != null) {
            LOG.debug("cuda stream {}: capture ended without a graph: {}", id, failure.getMessage());
            throw failure;
        }
        LOG.debug("cuda stream {}: capture sealed ({} mode): {} nodes, {} pinned bytes for recorded writes",
                id, captureMode, sealed.nodeCount(), sumBytes(sealed.hostCopies()));
        return sealed;
    }

    @Override
    public void abortCapture() {
        CapturedHostCopies copies = capture;
        capture = null;
        preparing = false;
        warmupWriteBytes = 0;
        RuntimeException failure = null;
        try {
            if (!closed) {
                context.makeCurrent();
                int status = CudaDriver.streamCaptureStatus(stream);
                if (status != CudaNative.CU_STREAM_CAPTURE_STATUS_NONE) {
                    endAndDiscard();
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            if (copies != null) {
                releases.captureEnded();
                releaseHostCopies(copies, failure);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void replay(BackendGraph graph) {
        ensureOpen();
        CudaGraph cuda = own(graph);
        if (cuda.isDestroyed()) {
            throw new IllegalStateException("graph " + cuda + " was destroyed");
        }
        context.makeCurrent();
        CudaDriver.graphLaunch(cuda.exec(), stream);
    }

    @Override
    public void destroy(BackendGraph graph) {
        CudaGraph cuda = own(graph);
        if (!cuda.markDestroyed()) {
            return;
        }
        releases.release(() -> {
            context.makeCurrent();
            RuntimeException failure = null;
            try {
                CudaDriver.graphExecDestroy(cuda.exec());
            } catch (RuntimeException e) {
                failure = e;
            }
            try {
                CapturedHostCopies.freeAll(pinned, cuda.hostCopies());
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            if (failure != null) {
                throw failure;
            }
        });
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        RuntimeException failure = null;
        if (capture != null) {
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

    /** Validates, dumps, instantiates and uploads the captured template; the caller destroys the template. */
    private CudaGraph seal(MemorySegment template, CapturedHostCopies copies) {
        int[] types = CudaDriver.graphNodeTypes(template);
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
        String dot = dot(template);
        MemorySegment exec = CudaDriver.graphInstantiate(template);
        try {
            CudaDriver.graphUpload(exec, stream);
        } catch (RuntimeException e) {
            try {
                CudaDriver.graphExecDestroy(exec);
            } catch (RuntimeException destroy) {
                e.addSuppressed(destroy);
            }
            throw e;
        }
        return new CudaGraph(this, exec, types.length, dot,
                copies == null ? List.of() : copies.transfer());
    }

    /** The driver's DOT dump of {@code template}, or null (logged) when it cannot be made. */
    private String dot(MemorySegment template) {
        Path file = null;
        try {
            file = Files.createTempFile("graphrt-cuda-", ".dot");
            CudaDriver.graphDebugDotPrint(template, file.toString(), CudaNative.CU_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cuda stream {}: cuGraphDebugDotPrint failed; the graph has no driver DOT", id, e);
            return null;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOG.debug("cuda stream {}: could not delete {}", id, file, e);
                }
            }
        }
    }

    /** Ends a driver capture that is open (or invalidated) and destroys whatever graph it returns. */
    private void endAndDiscard() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            int rc = CudaDriver.tryStreamEndCapture(stream, graphOut);
            MemorySegment graph = graphOut.get(ADDRESS, 0);
            LOG.debug("cuda stream {}: capture aborted (cuStreamEndCapture {} {})", id, rc, CudaDriver.resultName(rc));
            if (!graph.equals(MemorySegment.NULL)) {
                CudaDriver.graphDestroy(graph);
            }
        }
    }

    /** Frees a capture's host copies once no capture of the backend runs; failures join {@code primary}. */
    private void releaseHostCopies(CapturedHostCopies copies, RuntimeException primary) {
        try {
            releases.release(copies::free);
        } catch (RuntimeException e) {
            if (primary != null) {
                primary.addSuppressed(e);
            } else {
                LOG.warn("cuda stream {}: freeing a capture's pinned write copies failed", id, e);
            }
        }
    }

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

    private CudaGraph own(BackendGraph graph) {
        Objects.requireNonNull(graph, "graph");
        if (!(graph instanceof CudaGraph cuda) || cuda.owner() != this) {
            throw new IllegalArgumentException("graph " + graph + " was not captured on cuda stream " + id);
        }
        return cuda;
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

    private static long sumBytes(List<MemorySegment> blocks) {
        long sum = 0;
        for (MemorySegment block : blocks) {
            sum += block.byteSize();
        }
        return sum;
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
}
