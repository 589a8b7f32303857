package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.DriverException;
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
 * One non-blocking HIP stream ({@code hipStreamNonBlocking}: never the null stream) and its capture hooks;
 * the same shape as the cuda backend's stream, built from the same {@code dev.graphrt.spi.support} parts.
 *
 * <p>Hot paths allocate nothing: a launch refills the stream's {@link KernelParameterBlock}; a write is
 * bump-allocated into the {@link WriteStaging} ring; fences come from a pool of recycled events
 * ({@link EventFences}). While a capture is open, writes are staged into graph-owned pinned memory
 * ({@link CapturedHostCopies}) instead, so the recorded memcpy nodes replay the capture-time bytes for the
 * graph's whole life.
 *
 * <p>Where it differs from cuda: {@code closeCapture} instantiates with flags 0 and calls {@code hipGraphUpload}
 * only when the runtime exports it (ROCm 5.2 does not: the first replay then uploads the graph); the driver
 * DOT comes from {@code hipGraphDebugDotPrint} only when the runtime exports it (ROCm 5.5+); memory nodes are
 * recognised in the runtime's own numbering ({@link HipGraphNodeTypes}); a launch cannot check its parameter
 * count (HIP cannot tell it); pinned staging memory is freed through {@link CaptureAwareReleases} also at
 * close, because ROCm's {@code hipHostFree} synchronises the whole device and would invalidate another
 * stream's capture.
 *
 * <p>The core serialises calls per stream and never calls a host-synchronising method while this stream
 * records, so this class keeps no locks of its own; it makes the backend's device current on every entry
 * because the calling thread may differ from call to call.
 */
final class HipStream implements BackendStream {
    private static final Logger LOG = LoggerFactory.getLogger(HipStream.class);
    /** Largest pinned read buffer; bigger reads are copied through it piece by piece. */
    static final long READ_CHUNK_BYTES = 4L << 20;
    private static final long MIN_READ_BUFFER = 64L << 10;
    /** Most pinned bytes reserved before a capture from what the warm-up wrote (as the cuda backend). */
    static final long MAX_WRITE_RESERVATION = 16L << 20;

    private final long id;
    private final HipDevice device;
    private final CaptureAwareReleases releases;
    private final HipGraphNodeTypes nodeTypes;
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

    HipStream(long id, HipDevice device, CaptureAwareReleases releases, HipGraphNodeTypes nodeTypes) {
        this.id = id;
        this.device = device;
        this.releases = releases;
        this.nodeTypes = nodeTypes;
        this.pinned = new HipPinnedMemory(device);
        device.makeCurrent();
        this.stream = HipRuntime.streamCreate(HipNative.HIP_STREAM_NON_BLOCKING);
        this.parameters = new KernelParameterBlock(arena, HipAllocation::address);
        this.fences = new EventFences<>(new StreamEvents(stream));
        this.writes = new WriteStaging(pinned, fences);
        this.asyncCopy = (dst, staged) -> HipRuntime.memcpyHtoDAsync(dst, staged, staged.byteSize(), stream);
        LOG.debug("hip stream {}: created", id);
    }

    // ---- ordinary work ---------------------------------------------------------------------------------

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        ensureOpen();
        if (!(kernel instanceof HipKernel hip)) {
            throw new IllegalArgumentException("kernel " + kernel + " was not compiled by the hip backend");
        }
        device.makeCurrent();
        MemorySegment packed = parameters.pack(bindings);
        HipRuntime.launchKernel(hip.function(), dims.gridX(), dims.gridY(), dims.gridZ(),
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
        long address = HipAllocation.address(dst);
        device.makeCurrent();
        if (capture != null) {
            MemorySegment staged = capture.stage(src);
            HipRuntime.memcpyHtoDAsync(address, staged, bytes, stream);
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
        long address = HipAllocation.address(src);
        device.makeCurrent();
        if (bytes == 0) {
            synchronize();
            return;
        }
        long done = 0;
        while (done < bytes) {
            long piece = Math.min(bytes - done, READ_CHUNK_BYTES);
            MemorySegment buffer = readBuffer(piece);
            HipRuntime.memcpyDtoHAsync(buffer, address + done, piece, stream);
            HipRuntime.streamSynchronize(stream);
            MemorySegment.copy(buffer, 0, dst, done, piece);
            done += piece;
        }
        allWorkFinished();
    }

    @Override
    public Fence recordFence() {
        ensureOpen();
        device.makeCurrent();
        return fences.record();
    }

    @Override
    public boolean isComplete(Fence fence) {
        device.makeCurrent();
        return fences.isComplete(fence);
    }

    @Override
    public void await(Fence fence) {
        device.makeCurrent();
        fences.await(fence);
    }

    @Override
    public void synchronize() {
        ensureOpen();
        device.makeCurrent();
        HipRuntime.streamSynchronize(stream);
        allWorkFinished();
    }

    /** Asynchronous failures of finished work, found by {@code hipStreamQuery} without waiting. */
    @Override
    public List<Throwable> drainErrors() {
        ensureOpen();
        device.makeCurrent();
        int rc = HipRuntime.tryStreamQuery(stream);
        if (rc == HipNative.HIP_SUCCESS || rc == HipNative.HIP_ERROR_NOT_READY) {
            return List.of();
        }
        return List.of(HipRuntime.ERRORS.toException("hipStreamQuery", rc));
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
            throw new GraphStateException("openCapture: hip stream " + id + " is already capturing; end or cancel "
                    + "that capture before beginning another");
        }
        device.makeCurrent();
        CapturedHostCopies copies = new CapturedHostCopies(pinned);
        // before the capture begins, so the usual case allocates no host memory inside it
        copies.reserve(preparing ? Math.min(warmupWriteBytes, MAX_WRITE_RESERVATION) : 0);
        preparing = false;
        warmupWriteBytes = 0;
        releases.captureStarting();
        try {
            HipRuntime.streamBeginCapture(stream, DriverCaptureModes.code(mode));
        } catch (RuntimeException e) {
            releases.captureEnded();
            releaseHostCopies(copies, e);
            throw e;
        }
        capture = copies;
        captureMode = mode;
        LOG.debug("hip stream {}: capture begun ({} mode, {} bytes reserved for writes)", id, mode, copies.heldBytes());
    }

    @Override
    public BackendGraph closeCapture() {
        CapturedHostCopies copies = capture;
        capture = null;
        RuntimeException failure = null;
        MemorySegment template = MemorySegment.NULL;
        HipGraph sealed = null;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            device.makeCurrent();
            int rc = HipRuntime.tryStreamEndCapture(stream, graphOut); // always: a failure below never leaves it capturing
            template = graphOut.get(ADDRESS, 0);
            if (rc != HipNative.HIP_SUCCESS) {
                throw HipRuntime.ERRORS.toException("hipStreamEndCapture", rc);
            }
            if (template.equals(MemorySegment.NULL)) {
                throw new DriverException("hipStreamEndCapture", rc, HipRuntime.resultName(rc), "no graph returned");
            }
            sealed = seal(template, copies);
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            if (!template.equals(MemorySegment.NULL)) {
                try {
                    HipRuntime.graphDestroy(template);
                } catch (RuntimeException e) {
                    if (failure != null) {
                        failure.addSuppressed(e);
                    } else {
                        LOG.warn("hip stream {}: hipGraphDestroy of the capture template failed", id, e);
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
            LOG.debug("hip stream {}: capture ended without a graph: {}", id, failure.getMessage());
            throw failure;
        }
        LOG.debug("hip stream {}: capture sealed ({} mode): {} nodes, {} pinned bytes for recorded writes",
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
                device.makeCurrent();
                int status = HipRuntime.streamCaptureStatus(stream);
                if (status != HipNative.HIP_STREAM_CAPTURE_STATUS_NONE) {
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
        HipGraph hip = own(graph);
        if (hip.isDestroyed()) {
            throw new IllegalStateException("graph " + hip + " was destroyed");
        }
        device.makeCurrent();
        HipRuntime.graphLaunch(hip.exec(), stream);
    }

    @Override
    public void destroy(BackendGraph graph) {
        HipGraph hip = own(graph);
        if (!hip.markDestroyed()) {
            return;
        }
        releases.release(() -> {
            device.makeCurrent();
            RuntimeException failure = null;
            try {
                HipRuntime.graphExecDestroy(hip.exec());
            } catch (RuntimeException e) {
                failure = e;
            }
            try {
                CapturedHostCopies.freeAll(pinned, hip.hostCopies());
            } catch (RuntimeException e) {
                failure = suppressed(failure, e);
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
            device.makeCurrent();
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        try {
            fences.close();
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        MemorySegment lastReadBuffer = readBuffer;
        readBuffer = null;
        try {
            releases.release(() -> { // hipHostFree synchronises the device: never while another stream captures
                device.makeCurrent();
                RuntimeException freeing = null;
                try {
                    writes.close();
                } catch (RuntimeException e) {
                    freeing = e;
                }
                if (lastReadBuffer != null) {
                    try {
                        pinned.free(lastReadBuffer);
                    } catch (RuntimeException e) {
                        freeing = suppressed(freeing, e);
                    }
                }
                if (freeing != null) {
                    throw freeing;
                }
            });
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        try {
            HipRuntime.streamDestroy(stream);
        } catch (RuntimeException e) {
            failure = suppressed(failure, e);
        }
        arena.close();
        LOG.debug("hip stream {}: closed", id);
        if (failure != null) {
            throw failure;
        }
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "HipStream[" + id + "]";
    }

    // ---- internals -------------------------------------------------------------------------------------

    /** Validates, dumps, instantiates and (when the runtime can) uploads the template; the caller destroys it. */
    private HipGraph seal(MemorySegment template, CapturedHostCopies copies) {
        int[] types = HipRuntime.graphNodeTypes(template);
        nodeTypes.check(types);
        String dot = HipRuntime.hasGraphDebugDotPrint() ? dot(template) : null;
        MemorySegment exec = HipRuntime.graphInstantiate(template);
        if (HipRuntime.hasGraphUpload()) {
            try {
                HipRuntime.graphUpload(exec, stream);
            } catch (RuntimeException e) {
                try {
                    HipRuntime.graphExecDestroy(exec);
                } catch (RuntimeException destroy) {
                    e.addSuppressed(destroy);
                }
                throw e;
            }
        }
        return new HipGraph(this, exec, types.length, dot, copies == null ? List.of() : copies.transfer());
    }

    /** The runtime's DOT dump of {@code template}, or null (logged) when it cannot be made. */
    private String dot(MemorySegment template) {
        Path file = null;
        try {
            file = Files.createTempFile("graphrt-hip-", ".dot");
            HipRuntime.graphDebugDotPrint(template, file.toString(), HipNative.HIP_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            LOG.warn("hip stream {}: hipGraphDebugDotPrint failed; the graph has no driver DOT", id, e);
            return null;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOG.debug("hip stream {}: could not delete {}", id, file, e);
                }
            }
        }
    }

    /** Ends a runtime capture that is open (or invalidated) and destroys whatever graph it returns. */
    private void endAndDiscard() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            int rc = HipRuntime.tryStreamEndCapture(stream, graphOut);
            MemorySegment graph = graphOut.get(ADDRESS, 0);
            LOG.debug("hip stream {}: capture aborted (hipStreamEndCapture {} {})", id, rc, HipRuntime.resultName(rc));
            if (!graph.equals(MemorySegment.NULL)) {
                HipRuntime.graphDestroy(graph);
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
                LOG.warn("hip stream {}: freeing a capture's pinned write copies failed", id, e);
            }
        }
    }

    private MemorySegment readBuffer(long bytes) {
        if (readBuffer == null || readBuffer.byteSize() < bytes) {
            long size = Math.min(READ_CHUNK_BYTES, Math.max(MIN_READ_BUFFER, Long.highestOneBit(bytes - 1) << 1));
            MemorySegment grown = pinned.allocate(Math.max(size, bytes));
            if (readBuffer != null) {
                MemorySegment old = readBuffer;
                releases.release(() -> pinned.free(old));
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

    private HipGraph own(BackendGraph graph) {
        Objects.requireNonNull(graph, "graph");
        if (!(graph instanceof HipGraph hip) || hip.owner() != this) {
            throw new IllegalArgumentException("graph " + graph + " was not captured on hip stream " + id);
        }
        return hip;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("hip stream " + id + " is closed");
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
            return HipRuntime.eventCreate(HipNative.HIP_EVENT_DISABLE_TIMING);
        }

        @Override
        public void record(MemorySegment event) {
            HipRuntime.eventRecord(event, stream);
        }

        @Override
        public boolean query(MemorySegment event) {
            return HipRuntime.eventQuery(event);
        }

        @Override
        public void synchronize(MemorySegment event) {
            HipRuntime.eventSynchronize(event);
        }

        @Override
        public void destroy(MemorySegment event) {
            HipRuntime.eventDestroy(event);
        }
    }
}
