package dev.graphrt.backend.wgpu;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream on the device's queue.
 *
 * <p><b>Eager path.</b> Launches are encoded into the stream's open command encoder, into one open compute pass,
 * setting the pipeline and bind group only when they change, and submitted every {@code batch} launches or when
 * something needs the work on the queue (a write, a read, a fence, a replay, {@link #flush()}).
 *
 * <p><b>Software graph.</b> The stream is its own {@link SoftwareGraphs}: {@link #seal} resolves a recording once
 * into a {@link SealedGraph}; {@link #replay} submits this stream's open work, then lets the graph encode and
 * submit itself in chunks.
 *
 * <p>Every method takes the device lock; the core serialises calls per stream.
 */
final class WgpuStream implements BackendStream, SoftwareGraphs {
    private static final Logger LOG = LoggerFactory.getLogger(WgpuStream.class);
    private final WgpuDevice device;
    private final int batch;
    private final ReplayChunks chunks;
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final List<Bindings> encodedBindings = new ArrayList<>();
    private MemorySegment encoder;
    private MemorySegment pass;
    private long boundPipeline;
    private long boundGroup;
    private int encodedLaunches;
    private MemorySegment staging;
    private long stagingSize;
    private WgpuFence lastFence;
    private boolean closed;

    WgpuStream(WgpuDevice device, int batch, ReplayChunks chunks) {
        this.device = device;
        this.batch = Math.max(1, batch);
        this.chunks = Objects.requireNonNull(chunks, "chunks");
        device.register(this);
    }

    // ---- eager work ----------------------------------------------------------------------------------------

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        WgpuKernel k = WgpuKernel.of(kernel, device);
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(bindings, "bindings");
        device.checkGrid(dims);
        dispatchUnchecked(k, dims, bindings);
    }

    /** Encodes a launch without the grid check, so tests can reach the device's own (asynchronous) validation. */
    void dispatchUnchecked(WgpuKernel k, LaunchDims dims, Bindings bindings) {
        device.lock.lock();
        try {
            enter("launch");
            MemorySegment group = device.bindGroups.get(k, bindings);
            openPass();
            bind(k.pipeline(), group);
            Wgpu.computePassDispatch(pass, dims.gridX(), dims.gridY(), dims.gridZ());
            encodedBindings.add(bindings);
            if (++encodedLaunches >= batch) {
                submitOpen();
            }
        } finally {
            leave();
        }
    }

    @Override
    public void write(DeviceSlice dst, MemorySegment src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        WgpuAllocation a = allocation(dst, "dst");
        if (src.byteSize() > dst.length()) {
            throw new IllegalArgumentException(
                    "src: " + src.byteSize() + " bytes do not fit the " + dst.length() + "-byte slice");
        }
        if (src.byteSize() == 0) {
            return;
        }
        device.lock.lock();
        try {
            enter("write");
            submitOpen(); // the write must land after this stream's earlier launches
            device.writeBuffer(a.buffer(), dst.offset(), src);
        } finally {
            leave();
        }
    }

    @Override
    public void read(DeviceSlice src, MemorySegment dst) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        WgpuAllocation a = allocation(src, "src");
        if (dst.byteSize() > src.length()) {
            throw new IllegalArgumentException(
                    "dst: " + dst.byteSize() + " bytes exceed the " + src.length() + "-byte slice");
        }
        if (dst.byteSize() == 0) {
            synchronize();
            return;
        }
        long size = (dst.byteSize() + 3) & ~3L;
        device.lock.lock();
        try {
            enter("read");
            MemorySegment target = staging(size);
            openEncoder();
            endPass();
            device.call("wgpuCommandEncoderCopyBufferToBuffer");
            Wgpu.commandEncoderCopyBufferToBuffer(encoder, a.buffer(), src.offset(), target, 0, size);
            submitOpen();
            device.mapAndCopy(target, size, dst);
        } finally {
            leave();
        }
        throwErrors();
    }

    @Override
    public void flush() {
        device.lock.lock();
        try {
            enter("flush");
            submitOpen();
        } finally {
            leave();
        }
    }

    /**
     * A device has one queue, which runs submissions in order, and {@code other}'s fence was recorded after its
     * work was submitted: whatever this stream submits from now on runs after it.
     */
    @Override
    public boolean waitFor(BackendStream other, Fence fence) {
        return other instanceof WgpuStream source && source.device == device;
    }

    @Override
    public Fence recordFence() {
        device.lock.lock();
        try {
            enter("recordFence");
            submitOpen();
            if (lastFence != null && lastFence.serial() == device.submitSerial()) {
                return lastFence;
            }
            device.instance.processEvents(); // lets finished fences' callbacks run, so none pile up
            lastFence = device.fence();
            return lastFence;
        } finally {
            leave();
        }
    }

    @Override
    public boolean isComplete(Fence fence) {
        WgpuFence f = fence(fence);
        if (f.isDone()) {
            return true;
        }
        device.lock.lock();
        try {
            if (!device.isClosed()) {
                device.instance.poll(f.future());
            }
            return f.isDone() || device.isClosed();
        } finally {
            device.lock.unlock();
        }
    }

    @Override
    public void await(Fence fence) {
        WgpuFence f = fence(fence);
        if (!f.isDone()) {
            device.await(f);
        }
    }

    @Override
    public void synchronize() {
        WgpuFence f = (WgpuFence) recordFence();
        await(f);
        throwErrors();
    }

    @Override
    public List<Throwable> drainErrors() {
        device.lock.lock();
        try {
            if (device.isUsable() && !closed) {
                device.attribute(this, "drainErrors");
                submitOpen(); // validation errors of encoded work are reported when it is finished
            }
            if (!device.isClosed()) {
                device.instance.processEvents(); // a loss reported since is delivered now
            }
        } finally {
            device.attribute(null, "webgpu");
            device.lock.unlock();
        }
        List<Throwable> drained = new ArrayList<>();
        device.claimUnattributed(drained);
        for (Throwable t; (t = errors.poll()) != null; ) {
            drained.add(t);
        }
        return drained;
    }

    // ---- software graph ------------------------------------------------------------------------------------

    @Override
    public CaptureSupport capture() {
        return this;
    }

    @Override
    public BackendGraph seal(RecordedLaunches recording) {
        Objects.requireNonNull(recording, "recording");
        device.lock.lock();
        try {
            enter("seal");
            return SealedGraph.seal(this, device, recording, chunks);
        } finally {
            leave();
        }
    }

    @Override
    public void replay(BackendGraph graph) {
        Objects.requireNonNull(graph, "graph");
        if (graph instanceof RecordedLaunches recording) {
            SealedGraph sealed = (SealedGraph) seal(recording);
            try {
                replay(sealed);
            } finally {
                destroy(sealed);
            }
            return;
        }
        SealedGraph g = sealed(graph);
        device.lock.lock();
        try {
            enter("replay");
            if (g.isReleased()) {
                throw new IllegalArgumentException("graph: already destroyed");
            }
            submitOpen(); // this stream's earlier launches go first
            g.replay();
        } finally {
            leave();
        }
    }

    @Override
    public void destroy(BackendGraph graph) {
        if (graph instanceof RecordedLaunches) {
            return;
        }
        SealedGraph g = sealed(graph);
        device.lock.lock();
        try {
            if (!device.isClosed()) {
                g.release();
            }
        } finally {
            device.lock.unlock();
        }
    }

    // ---- lifecycle -----------------------------------------------------------------------------------------

    @Override
    public void close() {
        WgpuFence last = null;
        device.lock.lock();
        try {
            if (closed) {
                return;
            }
            if (device.isUsable()) {
                device.attribute(this, "close");
                submitOpen();
                last = device.fence();
            }
        } finally {
            device.attribute(null, "webgpu");
            device.lock.unlock();
        }
        if (last != null && !device.await(last, WgpuDevice.CLOSE_WAIT)) {
            LOG.warn(
                    "a wgpu stream's work did not finish within {} ms of its close; closing anyway",
                    WgpuDevice.CLOSE_WAIT.toMillis());
        }
        device.lock.lock();
        try {
            closed = true;
            if (staging != null && !device.isClosed()) {
                Wgpu.bufferDestroy(staging);
                Wgpu.bufferRelease(staging);
            }
            staging = null;
            device.unregister(this);
        } finally {
            device.lock.unlock();
        }
    }

    // ---- used by the device and the memory -----------------------------------------------------------------

    void addError(Throwable error) {
        errors.add(error);
    }

    /**
     * Submits the open encoder when an encoded launch binds bytes overlapping {@code [offset, offset + length)}
     * of {@code allocation} (see {@link WgpuMemory} on upload ordering). Caller holds the lock.
     */
    void submitIfEncodedReads(WgpuAllocation allocation, long offset, long length) {
        if (encoder == null || closed) {
            return;
        }
        for (Bindings b : encodedBindings) {
            if (overlaps(b, allocation, offset, length)) {
                device.attribute(this, "wgpuQueueSubmit");
                try {
                    submitOpen();
                } finally {
                    device.attribute(null, "webgpu");
                }
                return;
            }
        }
    }

    private static boolean overlaps(Bindings b, WgpuAllocation allocation, long offset, long length) {
        for (DeviceSlice s : b.buffers()) {
            if (overlaps(s, allocation, offset, length)) {
                return true;
            }
        }
        return b.hasInfo() && overlaps(b.info(), allocation, offset, length);
    }

    private static boolean overlaps(DeviceSlice s, WgpuAllocation allocation, long offset, long length) {
        return s.allocation() == allocation && s.offset() < offset + length && offset < s.offset() + s.length();
    }

    // ---- internals (device lock held) ----------------------------------------------------------------------

    private void enter(String call) {
        if (closed) {
            device.lock.unlock();
            throw new IllegalStateException("stream is closed");
        }
        try {
            device.checkUsable();
        } catch (RuntimeException e) {
            device.lock.unlock();
            throw e;
        }
        device.attribute(this, call);
    }

    private void leave() {
        if (device.lock.isHeldByCurrentThread()) {
            device.attribute(null, "webgpu");
            device.lock.unlock();
        }
    }

    private void openEncoder() {
        if (encoder == null) {
            encoder = Wgpu.deviceCreateCommandEncoder(device.device);
        }
    }

    private void openPass() {
        openEncoder();
        if (pass == null) {
            pass = Wgpu.commandEncoderBeginComputePass(encoder);
            boundPipeline = 0;
            boundGroup = 0;
        }
    }

    private void bind(MemorySegment pipeline, MemorySegment group) {
        if (pipeline.address() != boundPipeline) {
            Wgpu.computePassSetPipeline(pass, pipeline);
            boundPipeline = pipeline.address();
        }
        if (group.address() != boundGroup) {
            Wgpu.computePassSetBindGroup(pass, 0, group);
            boundGroup = group.address();
        }
    }

    private void endPass() {
        if (pass != null) {
            Wgpu.computePassEnd(pass);
            Wgpu.computePassRelease(pass);
            pass = null;
        }
    }

    /** Ends the pass, finishes and submits the open encoder (if any). */
    private void submitOpen() {
        if (encoder == null) {
            return;
        }
        endPass();
        MemorySegment e = encoder;
        encoder = null;
        encodedLaunches = 0;
        encodedBindings.clear();
        device.submit(e);
    }

    private MemorySegment staging(long size) {
        if (staging == null || stagingSize < size) {
            if (staging != null) {
                Wgpu.bufferDestroy(staging);
                Wgpu.bufferRelease(staging);
                staging = null;
            }
            long grown = Math.max(size, Math.min(stagingSize * 2, 64L << 20));
            grown = WgpuMemory.roundUp(grown, 256);
            staging =
                    device.createBuffer(WebGpuHeader.BUFFER_USAGE_MAP_READ | WebGpuHeader.BUFFER_USAGE_COPY_DST, grown);
            stagingSize = grown;
        }
        return staging;
    }

    private void throwErrors() {
        List<Throwable> pending = new ArrayList<>();
        device.claimUnattributed(pending);
        for (Throwable t; (t = errors.poll()) != null; ) {
            pending.add(t);
        }
        if (pending.isEmpty()) {
            return;
        }
        Throwable first = pending.getFirst();
        RuntimeException primary = first instanceof RuntimeException r
                ? r
                : new DriverException("webgpu", 0, "AsyncError", first.toString());
        if (primary != first) {
            primary.initCause(first);
        }
        for (Throwable t : pending.subList(1, pending.size())) {
            if (t != primary) {
                primary.addSuppressed(t);
            }
        }
        throw primary;
    }

    private WgpuAllocation allocation(DeviceSlice slice, String argument) {
        if (!(slice.allocation() instanceof WgpuAllocation a) || a.owner() != device) {
            throw new IllegalArgumentException(
                    argument + ": not an allocation of this wgpu backend: " + slice.allocation());
        }
        if (a.isFreed()) {
            throw new IllegalArgumentException(argument + ": allocation was freed");
        }
        return a;
    }

    private WgpuFence fence(Fence fence) {
        Objects.requireNonNull(fence, "fence");
        if (!(fence instanceof WgpuFence f)) {
            throw new IllegalArgumentException("fence: not a wgpu fence: " + fence);
        }
        return f;
    }

    private SealedGraph sealed(BackendGraph graph) {
        if (!(graph instanceof SealedGraph g) || g.stream() != this) {
            throw new IllegalArgumentException("graph: not sealed by this stream: " + graph);
        }
        return g;
    }
}
