package dev.graphrt.driver;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.RecordedLaunches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One non-blocking stream of a driver backend and its capture hooks, over the backend's {@link StreamDriver}:
 * the {@code BackendStream} work of every hardware-graph backend, written once.
 *
 * <p>Hot paths allocate nothing: a launch refills the stream's {@link KernelParameterBlock}; a write is
 * bump-allocated into the {@link WriteStaging} ring; fences come from a pool of recycled events
 * ({@link EventFences}). While a capture is open, writes are staged into graph-owned pinned memory
 * ({@link CapturedHostCopies}) instead, so the recorded memcpy nodes replay the capture-time bytes for the
 * graph's whole life. Its capture support is a {@link DriverCapture} ({@link #capture()}) whose steps are
 * {@link GraphCapture}'s.
 *
 * <p>The core serialises calls per stream and never calls a host-synchronising method while this stream
 * records, so this class keeps no locks of its own; it makes the backend's context current on every entry
 * because the calling thread may differ from call to call.
 */
public final class DriverStream implements BackendStream {
    private static final Logger LOG = LoggerFactory.getLogger(DriverStream.class);
    /** Indexes of {@link #rangeNames}. */
    private static final int PREPARE = 0;

    private static final int CAPTURE = 1;
    private static final int REPLAY = 2;
    private static final int SYNCHRONIZE = 3;
    /** Largest pinned read buffer; bigger reads are copied through it piece by piece. */
    public static final long READ_CHUNK_BYTES = 4L << 20;

    private static final long MIN_READ_BUFFER = 64L << 10;

    private final long id;
    private final String name;
    private final DriverNames names;
    private final StreamDriver driver;
    private final CaptureAwareReleases releases;
    private final PinnedHostMemory pinned;
    private final MemorySegment stream;
    private final Arena arena = Arena.ofShared();
    private final KernelParameterBlock parameters;
    private final EventFences<MemorySegment> fences;
    /** Events recorded into a capture, destroyed once the stream captures no more. */
    private final List<MemorySegment> captureEvents = new ArrayList<>();
    /** Set when a wait made this stream join another stream's capture; cleared once the driver says it ended. */
    private boolean joinedCapture;

    private final WriteStaging writes;
    private final WriteStaging.Copier asyncCopy;
    private final GraphCapture captures;
    private final Capture capture = new Capture();

    private final PhaseMarkers markers;
    /** "graphrt cuda stream 3: replay", made once: a replay's range costs no string. */
    private final String[] rangeNames;
    /** The open prepare range ({@link #onPrepare} to the capture's open) or capture range (to its close or abort). */
    private PhaseMarkers.Range phaseRange = PhaseMarkers.Range.NONE;

    private MemorySegment readBuffer;
    private boolean closed;

    /**
     * Creates stream {@code id} of the backend that {@code driver} calls.
     *
     * @param releases the backend's deferred host releases
     * @param pinned   the backend's page-locked host memory (staging, reads, recorded writes)
     */
    public DriverStream(long id, StreamDriver driver, CaptureAwareReleases releases, PinnedHostMemory pinned) {
        this.id = id;
        this.driver = Objects.requireNonNull(driver, "driver");
        this.releases = Objects.requireNonNull(releases, "releases");
        this.pinned = Objects.requireNonNull(pinned, "pinned");
        this.names = driver.names();
        String backend = names.backend();
        this.name = backend + " stream " + id;
        this.markers = driver.markers();
        this.rangeNames = Stream.of("prepare", "capture", "replay", "synchronize")
                .map(phase -> "graphrt " + name + ": " + phase)
                .toArray(String[]::new);
        driver.makeCurrent();
        this.stream = driver.createStream();
        this.parameters = new KernelParameterBlock(arena, slice -> DriverAllocation.address(slice, backend));
        this.fences = new EventFences<>(new StreamEvents(driver, stream));
        this.writes = new WriteStaging(pinned, fences);
        this.asyncCopy = (dst, staged) -> driver.copyHostToDevice(dst, staged, staged.byteSize(), stream);
        this.captures = new GraphCapture(
                driver,
                stream,
                releases,
                pinned,
                LoggerFactory.getLogger(DriverStream.class.getName() + "." + backend),
                id);
        LOG.debug("{}: created", name);
    }

    // ---- ordinary work ---------------------------------------------------------------------------------

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        ensureOpen();
        if (!(kernel instanceof DriverKernel own) || !own.backend().equals(names.backend())) {
            throw new IllegalArgumentException(
                    "kernel " + kernel + " was not compiled by the " + names.backend() + " backend");
        }
        int expected = own.parameterCount();
        if (expected >= 0 && expected != bindings.parameterCount()) {
            throw new IllegalArgumentException("kernel '" + own.entryPoint() + "' takes " + expected
                    + " parameters, but the launch binds " + bindings.buffers().size() + " buffer(s)"
                    + (bindings.hasInfo() ? " and an info buffer" : "") + " (docs/kernels.md)");
        }
        driver.makeCurrent();
        if (own.programmatic()) {
            driver.launchDependentKernel(own.function(), dims, parameters.pack(bindings), stream);
        } else {
            driver.launchKernel(own.function(), dims, parameters.pack(bindings), stream);
        }
        captures.noteLaunch();
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
        long address = DriverAllocation.address(dst, names.backend());
        driver.makeCurrent();
        if (captures.isCapturing()) {
            driver.copyHostToDevice(address, captures.stage(src), bytes, stream);
            return;
        }
        captures.noteWarmupWrite(bytes);
        writes.write(address, src, asyncCopy);
    }

    /**
     * A device-to-device copy in stream order. A slice of another instance of this backend (another device's
     * block) makes it a peer copy: peer access is enabled first where both devices allow it, else the driver stages
     * the copy through host memory. While capturing, the driver records it as a node.
     */
    @Override
    public boolean copy(DeviceSlice src, DeviceSlice dst) {
        ensureOpen();
        if (!(src.allocation() instanceof DriverAllocation from)
                || !(dst.allocation() instanceof DriverAllocation to)
                || !from.backend().equals(names.backend())
                || !to.backend().equals(names.backend())) {
            return false;
        }
        if (src.length() > dst.length()) {
            throw new IllegalArgumentException("copy of " + src.length() + " bytes into a slice of " + dst.length());
        }
        if (src.length() == 0) {
            return true;
        }
        driver.makeCurrent();
        for (DriverContext owner : new DriverContext[] {from.owner(), to.owner()}) {
            if (owner != driver && owner instanceof StreamDriver peer && !driver.enablePeerAccess(peer)) {
                LOG.debug("{}: no peer access to {}; the driver stages the copy through host memory", name, peer);
            }
        }
        driver.copyDeviceToDevice(
                DriverAllocation.address(dst, names.backend()),
                DriverAllocation.address(src, names.backend()),
                src.length(),
                stream);
        captures.noteLaunch();
        return true;
    }

    @Override
    public void read(DeviceSlice src, MemorySegment dst) {
        ensureOpen();
        long bytes = dst.byteSize();
        if (bytes > src.length()) {
            throw new IllegalArgumentException("read of " + bytes + " bytes from a slice of " + src.length());
        }
        long address = DriverAllocation.address(src, names.backend());
        driver.makeCurrent();
        if (bytes == 0) {
            synchronize();
            return;
        }
        long done = 0;
        while (done < bytes) {
            long piece = Math.min(bytes - done, READ_CHUNK_BYTES);
            MemorySegment buffer = readBuffer(piece);
            driver.copyDeviceToHost(buffer, address + done, piece, stream);
            driver.synchronizeStream(stream);
            MemorySegment.copy(buffer, 0, dst, done, piece);
            done += piece;
        }
        allWorkFinished();
    }

    /**
     * A fence; while this stream captures (its own capture, or one it joined), an event recorded into the capture
     * instead, which another stream's wait joins to it (fork/join). Such events are never pooled (a captured record
     * is no point in time to query) and are destroyed once the stream captures no more.
     */
    @Override
    public Fence recordFence() {
        ensureOpen();
        driver.makeCurrent();
        if (captures.isCapturing() || stillJoined()) {
            MemorySegment event = driver.createEvent();
            captureEvents.add(event);
            driver.recordEvent(event, stream);
            return new CaptureFence(this, event);
        }
        releaseCaptureEvents();
        return fences.record();
    }

    /** An event recorded into a capture on {@code owner}. */
    private record CaptureFence(DriverStream owner, MemorySegment event) implements Fence {}

    /** Whether this stream still takes part in a capture it joined (asks the driver only after a join). */
    private boolean stillJoined() {
        if (joinedCapture && !driver.graphs().isCapturing(stream)) {
            joinedCapture = false;
        }
        return joinedCapture;
    }

    private void releaseCaptureEvents() {
        if (captureEvents.isEmpty() || captures.isCapturing() || stillJoined()) {
            return;
        }
        List<MemorySegment> done = new ArrayList<>(captureEvents);
        captureEvents.clear();
        releases.release(() -> {
            driver.makeCurrent();
            done.forEach(driver::destroyEvent);
        });
    }

    @Override
    public boolean isComplete(Fence fence) {
        driver.makeCurrent();
        return fences.isComplete(fence);
    }

    @Override
    public void await(Fence fence) {
        driver.makeCurrent();
        fences.await(fence);
    }

    @Override
    public void synchronize() {
        ensureOpen();
        driver.makeCurrent();
        try (PhaseMarkers.Range ignored = markers.range(rangeNames[SYNCHRONIZE])) {
            driver.synchronizeStream(stream);
        }
        allWorkFinished();
    }

    /** Asynchronous failures of finished work, found by the stream's query without waiting. */
    @Override
    public List<Throwable> drainErrors() {
        ensureOpen();
        driver.makeCurrent();
        int rc = driver.queryStream(stream);
        if (rc == HardwareGraphErrors.SUCCESS || rc == HardwareGraphErrors.NOT_READY) {
            return List.of();
        }
        return List.of(names.errors().toException(names.callPrefix() + "StreamQuery", rc));
    }

    // ---- capture hooks: the orchestration is GraphCapture's ----------------------------------------------

    @Override
    public void onPrepare() {
        ensureOpen();
        endRange(); // a prepare that was never followed by a capture
        phaseRange = markers.range(rangeNames[PREPARE]); // until the capture opens: the warm-ups
        captures.onPrepare();
    }

    @Override
    public DriverCapture capture() {
        return capture;
    }

    /**
     * The stream's {@link DriverCapture}: {@link GraphCapture}'s sequence, with this stream's open check and its
     * profiler ranges around it. (Not the stream itself: {@code DriverCapture.close()} ends a capture, while
     * {@code BackendStream.close()} releases the stream.)
     */
    private final class Capture implements DriverCapture {
        @Override
        public void open(CaptureMode mode) {
            Objects.requireNonNull(mode, "mode");
            ensureOpen();
            endRange();
            phaseRange = markers.range(rangeNames[CAPTURE]);
            captures.open(mode); // a failure leaves the range open until the core's abort ends it
        }

        @Override
        public BackendGraph close() {
            try {
                return captures.close();
            } finally {
                endRange();
            }
        }

        @Override
        public BackendGraph closeInto(BackendGraph target) {
            try {
                return captures.closeInto(target);
            } finally {
                endRange();
            }
        }

        @Override
        public BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
            ensureOpen();
            return captures.rebind(graph, before, after, changed, parameters);
        }

        @Override
        public void abort() {
            abortCapture();
        }
    }

    /**
     * A stream of the same backend: this stream waits for the event of {@code other}'s fence on the device. For an
     * event recorded into a capture, the wait makes this stream join that capture (the driver follows the
     * dependency), as the core's fork/join expects.
     */
    @Override
    public boolean waitFor(BackendStream other, Fence fence) {
        if (!(other instanceof DriverStream source) || source.driver != driver) {
            return false;
        }
        ensureOpen();
        driver.makeCurrent();
        if (fence instanceof CaptureFence captured) {
            if (captured.owner() != source) {
                return false;
            }
            driver.waitEvent(stream, captured.event());
            if (!captures.isCapturing()) {
                joinedCapture = true;
            }
            return true;
        }
        source.fences.ifIncomplete(fence, event -> driver.waitEvent(stream, event));
        return true;
    }

    /** Ends any open driver capture and drops what it made ({@link DriverCapture#abort}, and {@link #close}). */
    private void abortCapture() {
        try {
            captures.abort(closed);
        } finally {
            endRange();
        }
    }

    @Override
    public void replay(BackendGraph graph) {
        ensureOpen();
        try (PhaseMarkers.Range ignored = markers.range(rangeNames[REPLAY])) {
            captures.replay(graph);
        }
    }

    private void endRange() {
        PhaseMarkers.Range range = phaseRange;
        phaseRange = PhaseMarkers.Range.NONE;
        range.close();
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
        endRange(); // a prepare that never reached its capture
        closed = true;
        try {
            driver.makeCurrent();
        } catch (RuntimeException e) {
            failure = Failures.join(failure, e);
        }
        try {
            fences.close();
        } catch (RuntimeException e) {
            failure = Failures.join(failure, e);
        }
        for (MemorySegment event : captureEvents) {
            try {
                driver.destroyEvent(event);
            } catch (RuntimeException e) {
                failure = Failures.join(failure, e);
            }
        }
        captureEvents.clear();
        MemorySegment lastReadBuffer = readBuffer;
        readBuffer = null;
        try {
            freeHost(() -> {
                driver.makeCurrent();
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
                        freeing = Failures.join(freeing, e);
                    }
                }
                if (freeing != null) {
                    throw freeing;
                }
            });
        } catch (RuntimeException e) {
            failure = Failures.join(failure, e);
        }
        try {
            driver.destroyStream(stream);
        } catch (RuntimeException e) {
            failure = Failures.join(failure, e);
        }
        arena.close();
        LOG.debug("{}: closed", name);
        if (failure != null) {
            throw failure;
        }
    }

    /** This stream's number within its backend. */
    public long id() {
        return id;
    }

    @Override
    public String toString() {
        return names.title() + "Stream[" + id + "]";
    }

    // ---- internals -------------------------------------------------------------------------------------

    private MemorySegment readBuffer(long bytes) {
        if (readBuffer == null || readBuffer.byteSize() < bytes) {
            long size = Math.min(READ_CHUNK_BYTES, Math.max(MIN_READ_BUFFER, Long.highestOneBit(bytes - 1) << 1));
            MemorySegment grown = pinned.allocate(Math.max(size, bytes));
            if (readBuffer != null) {
                MemorySegment old = readBuffer;
                freeHost(() -> pinned.free(old));
            }
            readBuffer = grown;
        }
        return readBuffer;
    }

    /** Frees host memory now, or through the releases where a free may synchronise the device. */
    private void freeHost(Runnable free) {
        if (driver.hostFreeSynchronizes()) {
            releases.release(free);
        } else {
            free.run();
        }
    }

    /** After a full synchronisation: every fence and every staged write finished. */
    private void allWorkFinished() {
        fences.allComplete();
        writes.allComplete();
    }

    /**
     * The native stream, with the backend's context made current on the calling thread: for a call of the shared
     * driver layer that enqueues on this stream itself (a collective, {@link DriverCommunicator}).
     */
    MemorySegment currentHandle() {
        ensureOpen();
        driver.makeCurrent();
        return stream;
    }

    /** Makes this stream's backend context current on the calling thread (before a call about its device). */
    void makeCurrent() {
        driver.makeCurrent();
    }

    /** The backend's name, for messages. */
    String backendName() {
        return names.backend();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** Fence events of one stream: timing disabled, recorded on that stream. */
    private record StreamEvents(StreamDriver driver, MemorySegment stream)
            implements EventFences.Events<MemorySegment> {
        @Override
        public MemorySegment create() {
            return driver.createEvent();
        }

        @Override
        public void record(MemorySegment event) {
            driver.recordEvent(event, stream);
        }

        @Override
        public boolean query(MemorySegment event) {
            return driver.queryEvent(event);
        }

        @Override
        public void synchronize(MemorySegment event) {
            driver.synchronizeEvent(event);
        }

        @Override
        public void destroy(MemorySegment event) {
            driver.destroyEvent(event);
        }
    }
}
