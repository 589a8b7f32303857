package dev.graphrt.backend.hip;

import dev.graphrt.api.CaptureMode;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One non-blocking HIP stream ({@code hipStreamNonBlocking}: never the null stream) and its capture hooks;
 * the same shape as the cuda backend's stream, built from the same {@code dev.graphrt.driver} parts.
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
    private final GraphCapture captures;

    private MemorySegment readBuffer;
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
        this.captures = new GraphCapture(new StreamGraphs(device, stream, nodeTypes), releases, pinned, LOG, id);
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
        if (captures.isCapturing()) {
            MemorySegment staged = captures.stage(src);
            HipRuntime.memcpyHtoDAsync(address, staged, bytes, stream);
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

    /**
     * The runtime's graph calls on this stream, for {@link GraphCapture}: each one {@code HipRuntime} call;
     * upload and DOT only where the runtime exports them, memory nodes in the runtime's numbering.
     */
    private record StreamGraphs(HipDevice device, MemorySegment stream, HipGraphNodeTypes nodeTypes)
            implements GraphDriver {
        @Override
        public String backend() {
            return "hip";
        }

        @Override
        public String callPrefix() {
            return "hip";
        }

        @Override
        public HardwareGraphErrors errors() {
            return HipRuntime.ERRORS;
        }

        @Override
        public void makeCurrent() {
            device.makeCurrent();
        }

        @Override
        public void beginCapture(int mode) {
            HipRuntime.streamBeginCapture(stream, mode);
        }

        @Override
        public int tryEndCapture(MemorySegment graphOut) {
            return HipRuntime.tryStreamEndCapture(stream, graphOut);
        }

        @Override
        public boolean isCapturing() {
            return HipRuntime.streamCaptureStatus(stream) != HipNative.HIP_STREAM_CAPTURE_STATUS_NONE;
        }

        @Override
        public int[] nodeTypes(MemorySegment template) {
            return HipRuntime.graphNodeTypes(template);
        }

        @Override
        public void checkRelaunchable(int[] types) {
            nodeTypes.check(types);
        }

        @Override
        public MemorySegment instantiate(MemorySegment template) {
            return HipRuntime.graphInstantiate(template);
        }

        @Override
        public void upload(MemorySegment exec) {
            if (HipRuntime.hasGraphUpload()) { // ROCm 5.2 lacks it: the first replay then uploads the graph
                HipRuntime.graphUpload(exec, stream);
            }
        }

        @Override
        public boolean printsDot() {
            return HipRuntime.hasGraphDebugDotPrint();
        }

        @Override
        public void printDot(MemorySegment template, String path) {
            HipRuntime.graphDebugDotPrint(template, path, HipNative.HIP_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
        }

        @Override
        public void destroyTemplate(MemorySegment template) {
            HipRuntime.graphDestroy(template);
        }

        @Override
        public void launch(MemorySegment exec) {
            HipRuntime.graphLaunch(exec, stream);
        }

        @Override
        public void destroyExec(MemorySegment exec) {
            HipRuntime.graphExecDestroy(exec);
        }
    }
}
