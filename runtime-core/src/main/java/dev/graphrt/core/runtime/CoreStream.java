package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.ReplayFailedException;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.core.events.ReplayEvent;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.DropQueue;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.metadata.MetadataCache;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.RecordedLaunch;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's stream: every user operation checks its input, asks {@link OperationPolicy} what the current
 * capture state allows, resolves buffers and info words to device slices, and hands the backend exactly
 * what it must do. One lock serialises the stream; other threads are refused while it records (unless
 * RELAXED).
 *
 * <p>Every buffer an operation uses is held, under the lock, before the backend sees its storage: by the
 * open recording while capturing (and then by the graph), else by the current epoch of this stream's work
 * until a fence behind it completes. A buffer whose storage is already gone makes the call fail as closed;
 * no call can reach storage another buffer owns. Every wait for the device is bounded by
 * {@code RuntimeOptions.waitTimeout}. Deferred releases that fail are reported at the next synchronize or close.
 */
final class CoreStream implements GpuStream {
    private static final Logger LOG = LoggerFactory.getLogger(CoreStream.class);
    private static final int MAX_TRACKED_REPLAYS = 8;

    private final CoreRuntime runtime;
    private final long id;
    private final BackendStream backend;
    private final DeviceMemory device;
    private final MemoryManager memory;
    private final OperationPolicy policy;
    private final DropQueue drops;
    private final MetadataCache metadata;
    private final CaptureLifecycle lifecycle;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<CoreGraph> liveGraphs = new LinkedHashSet<>();
    private final Set<Long> replayedSinceSync = new LinkedHashSet<>();
    /** Graph closes that found the lock busy (say, a Java kernel closing one while the host waits): run at the next flush point. */
    private final ConcurrentLinkedQueue<CoreGraph> closedGraphs = new ConcurrentLinkedQueue<>();
    private final Duration waitTimeout;
    private final long stagingLimit;
    private long stagedBytes;
    private volatile boolean closed;

    CoreStream(CoreRuntime runtime, long id, BackendStream backend) {
        this.runtime = runtime;
        this.id = id;
        this.backend = backend;
        this.device = runtime.backend().memory();
        this.memory = runtime.memory();
        this.policy = runtime.policy();
        this.waitTimeout = runtime.options().waitTimeout();
        this.stagingLimit = runtime.options().stagingBytes();
        this.drops = new DropQueue(backend, "stream #" + id, runtime::nextStamp, runtime::closedWhileHeldCount);
        this.metadata = new MetadataCache(runtime.options().metadataCacheEntries(),
                runtime.options().metadataMaxEntryBytes(), new MetadataStorage());
        this.lifecycle = new CaptureLifecycle(id, backend, policy, memory, metadata, drops, runtime::nextGraphId,
                runtime::nextStamp, waitTimeout);
    }

    /** Info buffers come from the same state-aware allocator as user buffers and leave through the drop queue. */
    private final class MetadataStorage implements MetadataCache.Storage {
        @Override
        public PoolSlice allocate(long bytes) {
            return allocateSlice(bytes, "info buffer");
        }

        @Override
        public void upload(PoolSlice slice, int[] words) {
            device.upload(slice.storage().prefix(words.length * 4L), MemorySegment.ofArray(words));
        }

        @Override
        public void deferFree(PoolSlice slice) {
            drops.defer("an info buffer", () -> memory.release(slice));
        }

        @Override
        public void freeUnused(PoolSlice slice) {
            memory.release(slice);
        }
    }

    @Override
    public long id() {
        return id;
    }

    CoreRuntime runtime() {
        return runtime;
    }

    // ---- memory ------------------------------------------------------------------------------------

    @Override
    public Buffer allocate(long bytes) {
        runtime.checkAllocationSize(bytes, "bytes");
        lock.lock();
        try {
            checkUsable("allocate");
            return new CoreBuffer(runtime, runtime.nextBufferId(), allocateSlice(bytes, "allocate"), bytes);
        } finally {
            lock.unlock();
        }
    }

    private PoolSlice allocateSlice(long bytes, String operation) {
        return switch (policy.allocation(lifecycle.current())) {
            case DYNAMIC_POOL -> {
                flushPoint();
                yield memory.allocateDynamic(bytes);
            }
            case PERSISTENT_PRIMED, PERSISTENT_WINDOW -> lifecycle.session().allocate(bytes);
        };
    }

    @Override
    public Buffer upload(float[] data) {
        Objects.requireNonNull(data, "data");
        return uploadSegment(MemorySegment.ofArray(data));
    }

    @Override
    public Buffer upload(int[] data) {
        Objects.requireNonNull(data, "data");
        return uploadSegment(MemorySegment.ofArray(data));
    }

    private Buffer uploadSegment(MemorySegment data) {
        if (data.byteSize() == 0) {
            throw new IllegalArgumentException("data must not be empty");
        }
        Buffer buffer = allocate(data.byteSize());
        try {
            write(buffer, data);
        } catch (RuntimeException failure) {
            buffer.close();
            throw failure;
        }
        return buffer;
    }

    @Override
    public void write(Buffer dst, float[] data) {
        Objects.requireNonNull(data, "data");
        write(dst, MemorySegment.ofArray(data));
    }

    @Override
    public void write(Buffer dst, int[] data) {
        Objects.requireNonNull(data, "data");
        write(dst, MemorySegment.ofArray(data));
    }

    @Override
    public void write(Buffer dst, MemorySegment data) {
        Objects.requireNonNull(data, "data");
        CoreBuffer buffer = runtime.checkBuffer(dst, "dst");
        if (data.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException("data has " + data.byteSize() + " bytes but dst " + buffer
                    + " holds only " + buffer.byteSize());
        }
        if (data.byteSize() == 0) {
            return;
        }
        lock.lock();
        try {
            checkUsable("write");
            DeviceSlice target = buffer.slice().storage().prefix(data.byteSize());
            switch (policy.write(lifecycle.current())) {
                case RUN -> {
                    applyBackPressure(data.byteSize());
                    hold(buffer, "dst");
                    stagedWrite(target, data);
                }
                case RECORD -> {
                    hold(buffer, "dst");
                    stagedWrite(target, data);
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("write of " + data.byteSize() + " bytes into " + buffer
                        + " (the " + policy.backend() + " backend lacks RECORDS_WRITES: write before prepare() or "
                        + "between replays)");
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bounds the host bytes queued behind the device: once {@code stagingBytes} were written since the stream
     * last drained, the writer waits (bounded) for the work so far instead of staging more copies.
     */
    private void applyBackPressure(long bytes) {
        stagedBytes += bytes;
        if (stagedBytes > stagingLimit) {
            awaitAll("queued writes to drain (more than " + stagingLimit + " bytes staged)");
            stagedBytes = bytes;
        }
    }

    private void stagedWrite(DeviceSlice target, MemorySegment data) {
        try {
            backend.write(target, data);
        } catch (OutOfMemoryError exhausted) {
            throw new DeviceOutOfMemoryException("write: stream #" + id + " could not stage " + data.byteSize()
                    + " bytes of host data (the JVM is out of memory); synchronize() or lower "
                    + "RuntimeOptions.stagingBytes", data.byteSize(), exhausted);
        }
    }

    /** Waits, at most the wait timeout, for every operation enqueued so far. Never while recording. */
    private void awaitAll(String waitingFor) {
        Fence fence = backend.recordFence();
        boolean done;
        try {
            done = backend.await(fence, waitTimeout);
        } catch (GraphRTException failure) {
            throw failure;
        } catch (RuntimeException failure) {
            throw new DriverException("stream #" + id + ": fence wait", failure);
        }
        if (!done) {
            throw new WaitTimeoutException("stream #" + id + ": waited " + waitTimeout.toMillis() + " ms for "
                    + waitingFor + " and the device did not finish; the stream's buffers stay held "
                    + "(RuntimeOptions.waitTimeout sets the bound)", waitTimeout);
        }
        stagedBytes = 0;
    }

    /**
     * Holds {@code buffer} for the operation being enqueued: in the open recording while capturing, else in
     * this stream's current epoch. Refuses a buffer whose storage is already gone (closed concurrently).
     */
    private void hold(CoreBuffer buffer, String argument) {
        boolean held = lifecycle.current() == CaptureState.CAPTURE
                ? buffer.holdFor(lifecycle.windowStamp(), lifecycle::holdInWindow)
                : buffer.holdFor(drops.epoch(), drops::hold);
        if (!held) {
            throw new IllegalArgumentException(argument + ": " + buffer + " is closed");
        }
    }

    /** Runs graph closes that arrived while the lock was busy, and returns finished releases; never blocks. */
    private void flushPoint() {
        for (CoreGraph graph; (graph = closedGraphs.poll()) != null; ) {
            releaseGraph(graph);
        }
        drops.flush(lifecycle.isRecording());
    }

    @Override
    public float[] readFloats(Buffer src) {
        CoreBuffer buffer = runtime.checkBuffer(src, "src");
        float[] out = new float[wordCount(buffer)];
        read(buffer, MemorySegment.ofArray(out));
        return out;
    }

    @Override
    public int[] readInts(Buffer src) {
        CoreBuffer buffer = runtime.checkBuffer(src, "src");
        int[] out = new int[wordCount(buffer)];
        read(buffer, MemorySegment.ofArray(out));
        return out;
    }

    private static int wordCount(CoreBuffer buffer) {
        if (buffer.byteSize() % 4 != 0 || buffer.byteSize() / 4 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("src " + buffer + " is not a whole number of 4-byte words, or too "
                    + "large for one array: read it into a MemorySegment instead");
        }
        return (int) (buffer.byteSize() / 4);
    }

    @Override
    public void read(Buffer src, MemorySegment dst) {
        Objects.requireNonNull(dst, "dst");
        CoreBuffer buffer = runtime.checkBuffer(src, "src");
        if (dst.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException("dst has " + dst.byteSize() + " bytes but src " + buffer + " holds only "
                    + buffer.byteSize());
        }
        lock.lock();
        try {
            checkUsable("read");
            policy.checkHostSync(lifecycle.current(), "read", id);
            hold(buffer, "src");
            reportingReplayFailures(() -> {
                awaitAll("the work before a read of " + buffer);
                if (dst.byteSize() > 0) {
                    backend.read(buffer.slice().storage().prefix(dst.byteSize()), dst);
                }
            });
            drops.releaseAllAfterSync();
        } finally {
            lock.unlock();
        }
    }

    // ---- work --------------------------------------------------------------------------------------

    @Override
    public void launch(Kernel kernel, LaunchDims dims, KernelArgs args) {
        CoreKernel compiled = runtime.checkKernel(kernel);
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(args, "args");
        List<Buffer> buffers = args.buffers();
        CoreBuffer[] used = new CoreBuffer[buffers.size()];
        DeviceSlice[] slices = new DeviceSlice[used.length];
        for (int i = 0; i < used.length; i++) {
            used[i] = runtime.checkBuffer(buffers.get(i), "args.buffers[" + i + "]");
            slices[i] = used[i].slice().storage();
        }
        lock.lock();
        try {
            checkUsable("launch");
            // The info lookup may allocate, and an allocation is a flush point that fences the epoch: the holds
            // are taken after it, so no fence can fall between them and the launch they protect.
            int[] words = args.infoWordsUnsafe();
            DeviceSlice info = words.length == 0 ? null : metadata.lookup(words);
            for (int i = 0; i < used.length; i++) {
                hold(used[i], "args.buffers[" + i + "]");
            }
            Bindings bindings = new Bindings(List.of(slices), info, words.length);
            switch (policy.launch(lifecycle.current())) {
                case RUN -> backend.launch(compiled.compiled(), dims, bindings);
                case RECORD_IN_DRIVER -> {
                    backend.launch(compiled.compiled(), dims, bindings);
                    lifecycle.recorder().add(new RecordedLaunch(compiled.compiled(), dims, bindings));
                }
                case RECORD_IN_CORE -> lifecycle.recorder().add(new RecordedLaunch(compiled.compiled(), dims, bindings));
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void replay(Graph graph) {
        CoreGraph target = runtime.checkGraph(graph, "graph");
        if (target.stream() != this) {
            throw new IllegalArgumentException("graph: " + target + " was captured on stream #"
                    + target.stream().id() + "; replay it there, not on stream #" + id);
        }
        lock.lock();
        try {
            checkUsable("replay");
            if (target.isClosed()) {
                throw new IllegalStateException("graph: " + target + " is closed and cannot be replayed");
            }
            if (lifecycle.current() == CaptureState.CAPTURE) {
                lifecycle.rejectLazily("replay of " + target + " (the " + policy.backend()
                        + " backend lacks NESTED_GRAPHS: replay it before prepare() or after endCapture())");
                return;
            }
            ReplayEvent event = new ReplayEvent();
            event.begin();
            backend.replay(target.backendGraph());
            target.countReplay();
            if (replayedSinceSync.size() < MAX_TRACKED_REPLAYS) {
                replayedSinceSync.add(target.id());
            }
            if (event.shouldCommit()) {
                event.graph = target.id();
                event.commit();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void flush() {
        lock.lock();
        try {
            checkUsable("flush");
            policy.checkHostSync(lifecycle.current(), "flush", id);
            backend.flush();
            flushPoint();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void synchronize() {
        lock.lock();
        try {
            checkUsable("synchronize");
            policy.checkHostSync(lifecycle.current(), "synchronize", id);
            flushPoint();
            reportingReplayFailures(() -> {
                awaitAll("synchronize");
                backend.synchronize();
            });
            drops.releaseAllAfterSync();
            drops.takeFailures().ifPresent(failure -> {
                throw failure;
            });
        } finally {
            lock.unlock();
        }
    }

    private void reportingReplayFailures(Runnable hostSync) {
        try {
            hostSync.run();
        } catch (RuntimeException raw) {
            GraphRTException failure = raw instanceof GraphRTException known ? known
                    : new DriverException("stream #" + id + " host synchronisation", raw);
            if (replayedSinceSync.isEmpty() || failure instanceof WaitTimeoutException) {
                throw failure;
            }
            List<String> graphs = replayedSinceSync.stream().map(g -> "graph #" + g).toList();
            replayedSinceSync.clear();
            throw new ReplayFailedException("stream #" + id + ": work failed after replays of " + graphs
                    + ": " + failure.getMessage(), failure);
        }
        replayedSinceSync.clear();
    }

    // ---- capture -----------------------------------------------------------------------------------

    @Override
    public CaptureState captureState() {
        return lifecycle.current();
    }

    @Override
    public Graph capture(CaptureOptions options, Consumer<GpuStream> step) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(step, "step");
        prepare();
        try {
            for (int pass = 0; pass < options.warmups(); pass++) {
                step.accept(this);
                endWarmupPass();
            }
            beginCapture(options);
            step.accept(this);
            return endCapture();
        } catch (RuntimeException | Error failure) {
            if (captureState() != CaptureState.NO_CAPTURE) {
                try {
                    cancelCapture();
                } catch (RuntimeException | Error later) {
                    failure.addSuppressed(later);
                }
            }
            throw failure;
        }
    }

    @Override
    public void prepare() {
        locked("prepare", lifecycle::prepare);
    }

    @Override
    public void endWarmupPass() {
        locked("endWarmupPass", lifecycle::endWarmupPass);
    }

    @Override
    public void beginCapture() {
        beginCapture(CaptureOptions.defaults());
    }

    @Override
    public void beginCapture(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        locked("beginCapture", () -> lifecycle.beginCapture(options));
    }

    @Override
    public Graph endCapture() {
        lock.lock();
        try {
            checkOpen("endCapture");
            SealedWindow window = lifecycle.endCapture();
            CoreGraph graph = new CoreGraph(this, window, policy.graphKind());
            liveGraphs.add(graph);
            runtime.graphSealed(graph);
            return graph;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void cancelCapture() {
        locked("cancelCapture", lifecycle::cancelCapture);
    }

    private void locked(String operation, Runnable action) {
        lock.lock();
        try {
            checkOpen(operation);
            action.run();
        } finally {
            lock.unlock();
        }
    }

    // ---- graphs and closing ------------------------------------------------------------------------

    /**
     * Closes a graph: its destroy, unpin and buffer releases run after a fence shows its replays finished. Never
     * blocks on a busy stream: when another thread holds the lock (a host waiting while a Java kernel closes the
     * graph), the close is queued and runs at the stream's next flush point. A no-op once the stream is closed.
     */
    void closeGraph(CoreGraph graph) {
        if (!lock.tryLock()) {
            if (graph.markClosed()) {
                closedGraphs.add(graph);
            }
            return;
        }
        try {
            if (closed || !graph.markClosed()) {
                return;
            }
            releaseGraph(graph);
            flushPoint();
        } finally {
            lock.unlock();
        }
    }

    /** Defers a (marked closed) graph's release behind the stream's work so far. Under the lock. */
    private void releaseGraph(CoreGraph graph) {
        if (!liveGraphs.remove(graph)) {
            return;
        }
        runtime.graphReleased(graph);
        drops.defer("graph #" + graph.id() + " (destroy)", () -> backend.destroy(graph.backendGraph()));
        drops.defer("graph #" + graph.id() + " (pins)", () -> {
            memory.unpin(graph.id());
            metadata.release(graph.id());
        });
        for (Retainable buffer : graph.retained()) {
            drops.defer("graph #" + graph.id() + " (a retained buffer)", buffer::release);
        }
    }

    /** Returns finished releases to the pools so trim() can give them back; never blocks, never while recording. */
    void reclaim() {
        lock.lock();
        try {
            if (!closed) {
                flushPoint();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the stream: cancels an open capture, waits (bounded) for its work, releases every graph and
     * everything deferred, and closes the backend stream. Always completes, whatever fails or times out on the
     * way; what failed is thrown at the end (the first as primary). Memory whose work did not finish in time
     * stays held until the runtime frees all its memory. A no-op when already closed.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            List<RuntimeException> failures = new ArrayList<>();
            abandonCapture("the stream is closing");
            Duration drainBound = waitTimeout;
            try {
                awaitAll("its work before closing");
                backend.synchronize();
            } catch (WaitTimeoutException stuck) {
                failures.add(stuck);
                drainBound = Duration.ofNanos(1);
            } catch (RuntimeException failure) {
                LOG.warn("stream #{}: outstanding work failed while closing: {}", id, failure.toString());
            }
            for (CoreGraph graph : new ArrayList<>(liveGraphs)) {
                graph.markClosed();
                releaseGraph(graph);
            }
            for (CoreGraph graph; (graph = closedGraphs.poll()) != null; ) {
                releaseGraph(graph);
            }
            // Graph releases unpin info entries, so the cache is cleared after they ran, then drained again.
            Optional<RuntimeException> stuck = drops.drain(drainBound);
            stuck.ifPresent(failures::add);
            if (stuck.isEmpty()) {
                attempt(failures, metadata::clearUnpinned);
                drops.drain(drainBound).ifPresent(failures::add);
            }
            closed = true;
            attempt(failures, backend::close);
            runtime.streamClosed(this);
            drops.takeFailures().ifPresent(failures::add);
            if (!failures.isEmpty()) {
                RuntimeException first = failures.get(0);
                failures.stream().skip(1).forEach(first::addSuppressed);
                throw first;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Ends an open capture window by the abort path (the stream or its runtime is closing); never throws for it. */
    void abandonCapture(String why) {
        lock.lock();
        try {
            CaptureState was = lifecycle.current();
            if (closed || was == CaptureState.NO_CAPTURE) {
                return;
            }
            RuntimeException failure = lifecycle.abort(new IllegalStateException("stream #" + id
                    + " left its capture window: " + why));
            LOG.warn("stream #{} closed during {}: the capture was cancelled ({})", id, was,
                    failure.getSuppressed().length == 0 ? "cleanly" : "with suppressed errors");
        } finally {
            lock.unlock();
        }
    }

    private static void attempt(List<RuntimeException> failures, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException failure) {
            failures.add(failure);
        }
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + ": stream #" + id + " is closed");
        }
        runtime.checkOpen(operation);
    }

    private void checkUsable(String operation) {
        checkOpen(operation);
        if (lifecycle.current() == CaptureState.CAPTURE) {
            policy.checkThread(CaptureState.CAPTURE, lifecycle.mode(), lifecycle.owner(), operation, id);
        }
    }

    @Override
    public String toString() {
        return "stream #" + id + " (" + lifecycle.current() + ")";
    }
}
