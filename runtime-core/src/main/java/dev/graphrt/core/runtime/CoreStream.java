package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphDiagnosis;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.core.events.GraphUpdateEvent;
import dev.graphrt.core.events.ReplayEvent;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.internal.ApiAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's stream: every user operation checks its input, asks {@link OperationPolicy} what the current
 * capture state allows (the thread rule included), resolves buffers and info words to device slices, and hands
 * the backend exactly what it must do. One lock serialises the stream.
 *
 * <p>What the stream's work keeps alive is {@link StreamMemory}'s job: every buffer an operation uses is held
 * there, under the lock, before the backend sees its storage, so no call can reach storage another buffer
 * owns. Every wait for the device is bounded by {@code RuntimeOptions.waitTimeout}. Deferred releases that fail
 * are reported at the next synchronize or close.
 */
final class CoreStream implements GpuStream, GraphOwner {
    private static final Logger LOG = LoggerFactory.getLogger(CoreStream.class);
    /** No stream: {@code anotherCaptureForbidsDeviceCalls(NO_STREAM)} asks about every stream's capture. */
    private static final long NO_STREAM = -1;

    private final CoreRuntime runtime;
    private final long id;
    private final BackendStream backend;
    private final OperationPolicy policy;
    private final StreamMemory memory;
    private final ReplayClock replayClock = new ReplayClock();
    private final CaptureLifecycle lifecycle;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReplayBlame blame;
    /** Checked mode's part of this stream (a no-op when it is off). */
    private final CheckedWork checked;
    private final Duration waitTimeout;
    private volatile boolean closed;
    /**
     * The capture this stream takes part in beyond its own (fork/join): as the origin that began it, or as a member
     * that joined it by waiting for one of its events; null otherwise. Written under the origin's lock.
     */
    private volatile CaptureGroup group;
    /** The graph pool of the open window, from prepare(options) to the end of the capture; null when none. */
    private CorePool windowPool;
    /** Intermediates this window borrowed, to the view using each: one view per intermediate, never reused in a run. */
    private final Map<CoreBuffer, CoreBuffer> borrowed = new IdentityHashMap<>();
    /** Buffers allocated while recording into a pooled window: its intermediates once their users closed them. */
    private final List<CoreBuffer> recordedAllocations = new ArrayList<>();
    /**
     * Intermediates this pooled window borrowed at least once, each retained until the window ends: the recording then
     * finds what the warm-up used even if the graph that owned it is released meanwhile.
     */
    private final Map<CoreBuffer, Boolean> windowRetains = new IdentityHashMap<>();
    /** What the graphs this pooled window replays (as children, or eagerly in its warm-up) hold: never lent out. */
    private final Map<Retainable, Boolean> replayedHere = new IdentityHashMap<>();
    /** The pooled window's allocations of the current warm-up pass, in order: which the step closed tells outputs apart. */
    private final List<CoreBuffer> passAllocations = new ArrayList<>();
    /**
     * What the last warm-up pass of the pooled window showed, per requested size in allocation order: whether the
     * step closed that allocation (a temporary, which the recording may place in an intermediate) or kept it open (an
     * output, which gets memory of its own). Empty without a warm-up: then the recording borrows nothing.
     */
    private final Map<Long, List<Boolean>> warmupClosed = new java.util.HashMap<>();
    /** Per requested size, how many allocations the recording of the pooled window made so far. */
    private final Map<Long, Integer> recordedBySize = new java.util.HashMap<>();
    /**
     * The stream whose warm-up this stream joined by waiting for an event recorded in it (fork/join in PREPARE, as
     * in CAPTURE): its allocations are primed in that stream's window, and that stream's pass ends wait for its
     * work. Null otherwise; cleared when that warm-up ends.
     */
    private volatile CoreStream warmupOrigin;
    /** The streams that joined this stream's warm-up (written under this stream's lock). */
    private final java.util.Set<CoreStream> warmupMembers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Closed by its user while another capture forbade device calls; torn down when that capture ends. */
    private volatile boolean closeDeferred;

    CoreStream(CoreRuntime runtime, long id, BackendStream backend) {
        this.runtime = runtime;
        this.id = id;
        this.backend = backend;
        this.policy = runtime.policy();
        this.waitTimeout = runtime.options().waitTimeout();
        this.memory = new StreamMemory(id, runtime, backend, (metadata, drops) -> new CaptureLifecycle(id, backend,
                policy, runtime.memory(), metadata, drops, runtime::nextGraphId, runtime::nextStamp, waitTimeout),
                this::isMember);
        this.lifecycle = memory.lifecycle();
        this.blame = new ReplayBlame(id);
        this.checked = new CheckedWork(runtime.guards());
    }

    @Override
    public long id() {
        return id;
    }

    // ---- memory ------------------------------------------------------------------------------------

    @Override
    public Buffer allocate(long bytes) {
        runtime.checkAllocationSize(bytes, "bytes");
        lock.lock();
        try {
            checkUsable("allocate");
            CoreBuffer view = borrowFromPool(bytes);
            if (view != null) {
                return view;
            }
            PoolSlice slice = allocateSlice(bytes + checked.extraBytes());
            CoreBuffer buffer;
            try {
                buffer = checked.buffer(runtime.scope(), runtime.nextBufferId(), slice, bytes);
            } catch (RuntimeException failure) {
                runtime.memory().release(slice);
                throw failure;
            }
            if (windowPool != null && !isMember() && lifecycle.current() == CaptureState.CAPTURE) {
                recordedAllocations.add(buffer);
            } else if (windowPool != null && !isMember() && lifecycle.current() == CaptureState.PREPARE) {
                passAllocations.add(buffer);
            }
            return buffer;
        } catch (RuntimeException failure) {
            throw runtime.failed("allocate on stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Inside a pooled window's recording (not in checked mode), a temporary may be a view of an intermediate of the
     * pool that no view of this run uses; null when none fits. Only what the warm-up showed to be a temporary (the
     * step closed the same allocation in its last pass) is placed there: an output the step keeps open belongs to
     * the graph alone, and the warm-up itself runs in memory of its own, so nothing it leaves open shares anything.
     */
    private CoreBuffer borrowFromPool(long bytes) {
        if (windowPool == null || isMember() || checked.on() || lifecycle.current() != CaptureState.CAPTURE) {
            return null;
        }
        int index = recordedBySize.merge(bytes, 1, Integer::sum) - 1;
        List<Boolean> closedInWarmup = warmupClosed.get(bytes);
        if (closedInWarmup == null || index >= closedInWarmup.size() || !closedInWarmup.get(index)) {
            return null;
        }
        CoreBuffer owner = windowPool.borrow(bytes, borrowed, replayedHere);
        if (owner == null) {
            return null;
        }
        if (windowRetains.containsKey(owner)) {
            // already retained for the window: the view takes the hold borrow() took
        } else if (owner.retain()) {
            windowRetains.put(owner, Boolean.TRUE);
        }
        CoreBuffer view = new CoreBuffer(runtime.scope(), runtime.nextBufferId(), owner, bytes);
        borrowed.put(owner, view);
        return view;
    }

    /**
     * A warm-up pass ended: what it allocated and closed (temporaries) and kept open (outputs) is what the recording
     * will do; the last pass that allocated anything is the one kept.
     */
    private void endPoolRun() {
        borrowed.values().removeIf(CoreBuffer::isClosed);
        if (windowPool == null || passAllocations.isEmpty()) {
            return;
        }
        warmupClosed.clear();
        for (CoreBuffer buffer : passAllocations) {
            warmupClosed.computeIfAbsent(buffer.byteSize(), size -> new ArrayList<>()).add(buffer.isClosed());
        }
        passAllocations.clear();
    }

    /** The graph just sealed holds its recorded allocations; those its user closed become the pool's intermediates. */
    private void registerIntermediates() {
        if (windowPool != null) {
            for (CoreBuffer buffer : recordedAllocations) {
                // Only a temporary that the new graph alone holds: another stream's work or capture may still use it.
                if (buffer.isClosed() && buffer.holdCount() == 1) {
                    windowPool.addIntermediate(buffer);
                }
            }
        }
    }

    /**
     * The window ended (sealed, cancelled or aborted): nothing of it is borrowed or recorded any more. A view still
     * open here belongs to a window that was refused or cancelled (a sealed one refuses open views): it is given
     * memory of its own, so no buffer the user keeps shares an intermediate another graph replays into.
     */
    private void endPoolWindow() {
        if (lifecycle.current() == CaptureState.NO_CAPTURE) {
            endWarmup();
            for (CoreBuffer view : borrowed.values()) {
                if (!view.isClosed()) {
                    privatize(view);
                }
            }
            windowPool = null;
            passAllocations.clear();
            warmupClosed.clear();
            recordedBySize.clear();
            borrowed.clear();
            recordedAllocations.clear();
            replayedHere.clear();
            windowRetains.keySet().forEach(CoreBuffer::release);
            windowRetains.clear();
        }
    }

    /** Moves an open view of an undone window to a slice of its own; failing that, its handle is closed. */
    private void privatize(CoreBuffer view) {
        try {
            view.privatize(memory.allocate(view.byteSize()));
            LOG.debug("stream #{}: {} left open by an undone pooled capture now has memory of its own", id, view);
        } catch (RuntimeException failure) {
            LOG.warn("stream #{}: {} was left open by an undone pooled capture and could not get memory of its own; "
                    + "it is closed: {}", id, view, failure.toString());
            view.close();
        }
    }

    /**
     * Inside a pooled window no view may be left open when the graph is sealed: an output in shared memory would be
     * overwritten by the pool's other graphs. Refused with the capture intact (cancel it, then allocate the output
     * outside the step).
     */
    private void refuseOpenViews(String operation) {
        for (CoreBuffer view : borrowed.values()) {
            if (!view.isClosed()) {
                throw new CaptureRejectedException(operation + ": " + view + " was allocated inside this capture into "
                        + "graph pool memory, because the warm-up closed the same allocation, and is still open; the "
                        + "recording must keep and close what the warm-up did (an output the step keeps open in its "
                        + "warm-up gets memory of its own); the capture is intact: cancel it, and the buffer then "
                        + "gets memory of its own");
            }
        }
    }

    /**
     * A replay inside a pooled window (as a child, or eagerly in its warm-up) of a graph holding memory this window
     * lent to a live temporary would overwrite it: refused; otherwise what the graph holds is never lent out here.
     */
    private void checkReplayInPool(CoreGraph target) {
        if (windowPool == null || lifecycle.current() == CaptureState.NO_CAPTURE) {
            return;
        }
        for (Retainable held : target.retained()) {
            CoreBuffer view = held instanceof CoreBuffer buffer ? borrowed.get(buffer) : null;
            if (view != null && !view.isClosed()) {
                throw new IllegalStateException("replay: " + target + " uses memory this pooled capture lent to "
                        + view + ", which is still open; replay it before allocating that temporary, or outside the "
                        + "pooled capture");
            }
        }
        for (Retainable held : target.retained()) {
            replayedHere.put(held, Boolean.TRUE);
        }
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
        CoreStream origin = lockOrigin();
        try {
            checkUsable("write");
            DeviceSlice target = buffer.storage().prefix(data.byteSize());
            if (origin != null) {
                origin.lifecycle.rejectLazily("write of " + data.byteSize() + " bytes into " + buffer + " on stream #"
                        + id + ", which joined this capture: a recorded write belongs on the capture's origin stream #"
                        + origin.id());
                return;
            }
            switch (policy.write(lifecycle.current())) {
                case RUN -> {
                    memory.beforeStagedWrite(data.byteSize());
                    memory.hold(buffer, "dst");
                    memory.stagedWrite(target, data);
                }
                case RECORD -> {
                    memory.hold(buffer, "dst");
                    memory.stagedWrite(target, data);
                    lifecycle.noteRecordedWrite();
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("write of " + data.byteSize() + " bytes into " + buffer
                        + " (the " + policy.backend() + " backend lacks RECORDS_WRITES: write before prepare() or "
                        + "between replays)");
            }
        } catch (RuntimeException failure) {
            throw runtime.failed("write on stream #" + id, failure);
        } finally {
            unlockOrigin(origin);
            lock.unlock();
        }
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
            policy.checkHostSync(state(), "read", id);
            policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(id), "read", id);
            memory.hold(buffer, "src");
            blame.hostSync(() -> {
                memory.awaitAll("the work before a read of " + buffer);
                if (dst.byteSize() > 0) {
                    backend.read(buffer.storage().prefix(dst.byteSize()), dst);
                }
            });
            Optional<BufferOverrunException> overrun = checked.check(backend);
            memory.afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        } catch (RuntimeException failure) {
            throw runtime.failed("read on stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void copy(Buffer src, Buffer dst) {
        CoreBuffer from = runtime.checkCopyBuffer(src, "src");
        CoreBuffer to = runtime.checkCopyBuffer(dst, "dst");
        boolean ownSource = runtime.owns(from);
        boolean ownTarget = runtime.owns(to);
        if (!ownSource && !ownTarget) {
            throw new IllegalArgumentException("src and dst: neither " + from + " nor " + to + " belongs to this "
                    + "stream's runtime; copy on a stream of the runtime of one of them");
        }
        if (from == to) {
            throw new IllegalArgumentException("src and dst are the same buffer " + from + ": a copy needs two");
        }
        if (from.byteSize() > to.byteSize()) {
            throw new IllegalArgumentException("dst: " + to + " holds " + to.byteSize() + " bytes, fewer than src "
                    + from + " (" + from.byteSize() + " bytes)");
        }
        if (ownSource && ownTarget) {
            copyWithin(from, to);
        } else {
            copyBetweenRuntimes(from, to, ownSource ? to : from);
        }
    }

    /** A copy within this runtime: asynchronous, recorded by a hardware capture, through the host where it must. */
    private void copyWithin(CoreBuffer from, CoreBuffer to) {
        lock.lock();
        CoreStream origin = lockOrigin();
        try {
            checkUsable("copy");
            if (origin != null) {
                origin.lifecycle.rejectLazily("copy of " + from + " to " + to + " on stream #" + id + ", which joined "
                        + "this capture: a recorded copy belongs on the capture's origin stream #" + origin.id());
                return;
            }
            switch (policy.copy(lifecycle.current())) {
                case RUN -> {
                    memory.hold(from, "src");
                    memory.hold(to, "dst");
                    if (!backend.copy(from.storage().prefix(from.byteSize()), to.storage())) {
                        copyThroughHost(from, to);
                    }
                }
                case RECORD_IN_DRIVER -> {
                    memory.hold(from, "src");
                    memory.hold(to, "dst");
                    if (backend.copy(from.storage().prefix(from.byteSize()), to.storage())) {
                        // a node the core's recording does not hold: a rebind leaves it, and its buffers, as they are
                        lifecycle.noteRecordedWrite();
                    } else {
                        lifecycle.rejectLazily("copy of " + from + " to " + to + " (the " + policy.backend()
                                + " backend cannot copy device to device, so the copy cannot be recorded)");
                    }
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("copy of " + from + " to " + to + " (the "
                        + policy.backend() + " backend's software graphs hold launches only: copy before prepare() "
                        + "or between replays)");
            }
        } catch (RuntimeException failure) {
            throw runtime.failed("copy on stream #" + id, failure);
        } finally {
            unlockOrigin(origin);
            lock.unlock();
        }
    }

    /** For a backend without device-to-device copies: a read and a write, in stream order, through host memory. */
    private void copyThroughHost(CoreBuffer from, CoreBuffer to) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staged = arena.allocate(from.byteSize(), 16);
            read(from, staged);
            write(to, staged);
        }
    }

    /**
     * A copy between this runtime and another of the same backend (another device): device to device where the
     * backend can reach the other device, refused otherwise; it returns once the copy completed, so the other
     * runtime's buffer is used only while this call holds it.
     */
    private void copyBetweenRuntimes(CoreBuffer from, CoreBuffer to, CoreBuffer foreign) {
        String foreignArgument = foreign == from ? "src" : "dst";
        CoreBuffer own = foreign == from ? to : from;
        lock.lock();
        try {
            checkUsable("copy");
            policy.checkCopyBetweenRuntimes(state(), id);
            policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(id), "copy", id);
            memory.hold(own, foreign == from ? "dst" : "src");
            Loan loan = Loan.take(foreign, foreignArgument);
            boolean copied;
            try {
                copied = backend.copy(from.storage().prefix(from.byteSize()), to.storage());
            } catch (RuntimeException failure) {
                memory.holdUntilDone(loan); // the driver may have enqueued it: keep the memory until the stream is done
                throw failure;
            }
            if (!copied) {
                loan.release();
                throw new IllegalArgumentException(foreignArgument + ": the " + policy.backend() + " backend "
                        + "cannot copy between its runtimes (" + foreign.scope().device() + " and this stream's); "
                        + "read and upload through the host");
            }
            memory.holdUntilDone(loan); // let go only once the copy is done, even if the wait below fails
            blame.hostSync(() -> memory.awaitAll("a copy between runtimes of " + from + " to " + to));
            memory.afterSync();
        } catch (RuntimeException failure) {
            throw runtime.failed("copy on stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Another runtime's buffer, held for a copy between runtimes: the buffer itself (its storage stays out of that
     * runtime's pools) and a loan of that runtime's memory (its close waits for the loan), both let go together.
     */
    private record Loan(CoreBuffer buffer) implements Retainable {
        static Loan take(CoreBuffer buffer, String argument) {
            RuntimeScope owner = buffer.scope();
            if (!owner.lend()) {
                throw new IllegalArgumentException(argument + ": " + buffer + " belongs to a runtime that is closing ("
                        + owner.device() + ")");
            }
            if (!buffer.retain()) {
                owner.giveBack();
                throw new IllegalArgumentException(argument + ": " + buffer + " is closed");
            }
            return new Loan(buffer);
        }

        @Override
        public boolean retain() {
            throw new UnsupportedOperationException("a loan is taken once and released once");
        }

        @Override
        public void release() {
            try {
                buffer.release();
            } finally {
                buffer.scope().giveBack();
            }
        }

        @Override
        public long retainedBytes() {
            return 0; // the other runtime accounts for its own storage
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
            slices[i] = used[i].storage();
        }
        LaunchArguments.check(compiled.compiled(), args); // before the info lookup, any hold or any enqueueing
        lock.lock();
        CoreStream origin = lockOrigin();
        try {
            checkUsable("launch");
            StreamMemory memory = recordingMemory();
            CaptureLifecycle lifecycle = recording();
            // The info lookup may allocate, and an allocation is a flush point that fences the epoch: the holds
            // are taken after it, so no fence can fall between them and the launch they protect.
            int[] words = ApiAccess.infoWords(args);
            DeviceSlice info = memory.info(words);
            for (int i = 0; i < used.length; i++) {
                memory.hold(used[i], "args.buffers[" + i + "]");
            }
            if (checked.on()) {
                checked.launched(compiled.compiled().entryPoint() + " " + dims, used);
            }
            Bindings bindings = new Bindings(List.of(slices), info, words.length);
            switch (policy.launch(lifecycle.current())) {
                case RUN -> backend.launch(compiled.compiled(), dims, bindings);
                case RECORD_IN_DRIVER -> {
                    backend.launch(compiled.compiled(), dims, bindings);
                    lifecycle.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
                }
                case RECORD_IN_CORE -> lifecycle.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
            }
            countOperation();
        } catch (RuntimeException failure) {
            throw runtime.failed("launch of " + compiled + " on stream #" + id, failure);
        } finally {
            unlockOrigin(origin);
            lock.unlock();
        }
    }

    /**
     * Replays a graph this stream sealed. Inside a recording the policy decides: the replay becomes part of the
     * new graph (which then holds the child and its buffers), or is rejected lazily.
     */
    @Override
    public void replay(Graph graph) {
        CoreGraph target = runtime.checkGraph(graph, "graph");
        if (target.owner() != this) {
            throw new IllegalArgumentException("graph: " + target + " was captured on stream #"
                    + target.owner().id() + "; replay it there, not on stream #" + id);
        }
        lock.lock();
        CoreStream origin = lockOrigin();
        try {
            checkUsable("replay");
            if (target.isClosed()) {
                throw new IllegalStateException("graph: " + target + " is closed and cannot be replayed");
            }
            if (origin != null) {
                origin.lifecycle.rejectLazily("replay of " + target + " on stream #" + id + ", which joined this "
                        + "capture: replay it on the capture's origin stream #" + origin.id());
                return;
            }
            checkReplayInPool(target);
            switch (policy.replay(lifecycle.current())) {
                case RUN -> {
                    replayNow(target);
                    checked.replayed(target);
                }
                case RECORD_IN_DRIVER -> {
                    memory.holdChild(target);
                    backend.replay(target.backendGraph());
                    lifecycle.recordChild(target.window());
                }
                case RECORD_IN_CORE -> {
                    memory.holdChild(target);
                    lifecycle.recordChild(target.window());
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("replay of " + target + " (the " + policy.backend()
                        + " backend lacks NESTED_GRAPHS: replay it before prepare() or after endCapture())");
            }
            if (lifecycle.current() == CaptureState.CAPTURE) {
                countOperation();
            }
        } catch (RuntimeException failure) {
            throw runtime.failed("replay of " + target, failure);
        } finally {
            unlockOrigin(origin);
            lock.unlock();
        }
    }

    private void replayNow(CoreGraph target) {
        ReplayEvent event = new ReplayEvent();
        event.begin();
        backend.replay(target.backendGraph());
        target.countReplay();
        blame.replayed(target.id());
        Observers observers = runtime.observers();
        if (observers.active()) {
            observers.replayed(id, target.id());
            replayClock.enqueued(target.id());
        }
        if (event.shouldCommit()) {
            event.graph = target.id();
            event.commit();
        }
    }

    // ---- events ------------------------------------------------------------------------------------

    @Override
    public StreamEvent record() {
        lock.lock();
        CoreStream origin = lockOrigin();
        try {
            checkUsable("record");
            CaptureState state = state();
            policy.checkEvent(state, "record() on stream #" + id);
            if (state != CaptureState.CAPTURE) {
                return new CoreEvent(this, backend.recordFence(), warmupOf());
            }
            if (group == null) {
                group = new CaptureGroup(this); // this stream's own capture begins to span streams
            }
            // A hardware capture records a driver event into the graph; a software one needs only the position.
            Fence fence = policy.graphKind() == GraphKind.HARDWARE ? backend.recordFence() : null;
            return new CoreEvent(this, fence, group, group.operations(this));
        } catch (RuntimeException failure) {
            throw runtime.failed("record on stream #" + id, failure);
        } finally {
            unlockOrigin(origin);
            lock.unlock();
        }
    }

    /**
     * Orders this stream's later work after {@code event}'s: on the device where the backend can, else by a host
     * wait bounded by the wait timeout. The other stream's backend is only asked for its (thread-safe) fence, never
     * under its lock, so two streams waiting for each other cannot deadlock here. An event recorded inside a
     * capture makes this stream join that capture (fork), or, for a stream already in it, orders it (join).
     */
    @Override
    public void waitFor(StreamEvent event) {
        CoreEvent other = runtime.checkEvent(event, "event");
        if (other.group() != null) {
            waitInCapture(other);
            return;
        }
        lock.lock();
        try {
            checkUsable("waitFor");
            policy.checkEvent(state(), "waitFor() on stream #" + id);
            if (state() == CaptureState.CAPTURE) {
                throw new CaptureRejectedException("waitFor: " + other + " was recorded outside the capture stream #"
                        + id + " takes part in; a capture can wait only for events recorded in it");
            }
            CoreStream source = other.stream();
            if (source == this || source.isClosed() || backend.waitFor(source.backend, other.fence())) {
                joinWarmup(other.warmup());
                return; // stream order already; a closed stream's work is done; or the device waits
            }
            joinWarmup(other.warmup());
            policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(id), "waitFor", id);
        } catch (RuntimeException failure) {
            throw runtime.failed("waitFor on stream #" + id, failure);
        } finally {
            lock.unlock();
        }
        other.stream().awaitEvent(other.fence()); // a host wait, outside this stream's lock
    }

    /**
     * A wait for an event of a capture: this stream joins that capture (fork), or is ordered inside it (join).
     * Whether it may is decided under this stream's lock alone, before the origin's is taken (always in that
     * order), so two streams of two captures waiting for each other's events are refused rather than deadlocked.
     */
    private void waitInCapture(CoreEvent event) {
        CaptureGroup target = event.group();
        CoreStream origin = target.origin();
        lock.lock();
        try {
            checkOpen("waitFor");
            boolean inside = group == target || origin == this;
            if (!inside && (group != null || lifecycle.current() != CaptureState.NO_CAPTURE)) {
                throw new CaptureRejectedException("waitFor: stream #" + id + " is in " + state() + " of another "
                        + "capture and cannot join stream #" + origin.id() + "'s; a stream joins a capture from "
                        + "NO_CAPTURE");
            }
            if (origin != this) {
                origin.lock.lock();
            }
            try {
                if (target.ended()) {
                    throw new IllegalStateException("waitFor: " + event + " belongs to a capture that has ended");
                }
                origin.lifecycle.checkCaller("waitFor on stream #" + id);
                policy.checkEvent(CaptureState.CAPTURE, "waitFor() on stream #" + id);
                if (event.stream() != this && policy.graphKind() == GraphKind.HARDWARE
                        && !backend.waitFor(event.stream().backend, event.fence())) {
                    throw new UnsupportedOperationException("the " + policy.backend() + " backend declares "
                            + "MULTI_STREAM_CAPTURE but its stream could not wait for a capture event");
                }
                if (!inside) {
                    target.join(this);
                    group = target;
                    LOG.debug("stream #{} joined stream #{}'s capture", id, origin.id());
                }
                target.waited(this, event);
            } finally {
                if (origin != this) {
                    origin.lock.unlock();
                }
            }
        } catch (RuntimeException failure) {
            throw runtime.failed("waitFor on stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the work before {@code fence} (of this stream) finished; a closed stream's work has. */
    boolean eventComplete(Fence fence) {
        policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(NO_STREAM), "isComplete", id);
        lock.lock();
        try {
            return closed || backend.isComplete(fence);
        } finally {
            lock.unlock();
        }
    }

    /** Waits, at most the wait timeout, for the work before {@code fence}; polls, so the lock is held briefly. */
    void awaitEvent(Fence fence) {
        long deadline = System.nanoTime() + runtime.options().waitTimeout().toNanos();
        long pause = 20_000;
        while (!eventComplete(fence)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new WaitTimeoutException("await: the work before an event of stream #" + id
                        + " did not finish within " + runtime.options().waitTimeout()
                        + " (RuntimeOptions.waitTimeout); the device may be stuck", runtime.options().waitTimeout());
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 1_000_000);
        }
    }

    @Override
    public void flush() {
        lock.lock();
        try {
            checkUsable("flush");
            policy.checkHostSync(state(), "flush", id);
            backend.flush();
            memory.flushPoint();
        } catch (RuntimeException failure) {
            throw runtime.failed("flush of stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void synchronize() {
        lock.lock();
        try {
            checkUsable("synchronize");
            policy.checkHostSync(state(), "synchronize", id);
            policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(id), "synchronize", id);
            memory.flushPoint();
            blame.hostSync(() -> {
                memory.awaitAll("synchronize");
                backend.synchronize();
            });
            Optional<BufferOverrunException> overrun = checked.check(backend);
            memory.afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
            memory.takeFailures().ifPresent(failure -> {
                throw failure;
            });
            replayClock.completed(id, runtime.observers());
        } catch (RuntimeException failure) {
            replayClock.clear();
            throw runtime.failed("synchronize of stream #" + id, failure);
        } finally {
            lock.unlock();
        }
    }

    // ---- capture -----------------------------------------------------------------------------------

    @Override
    public CaptureState captureState() {
        return state();
    }

    @Override
    public Graph capture(CaptureOptions options, Consumer<GpuStream> step) {
        return runCapture(options, step, this::endCapture);
    }

    /** prepare(), the warm-ups, beginCapture(), the step, then {@code end}; any failure cancels the capture. */
    private <T> T runCapture(CaptureOptions options, Consumer<GpuStream> step, Supplier<T> end) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(step, "step");
        prepare(options);
        try {
            for (int pass = 0; pass < options.warmups(); pass++) {
                step.accept(this);
                endWarmupPass();
            }
            beginCapture(options);
            step.accept(this);
            return end.get();
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

    // ---- changing a live graph ---------------------------------------------------------------------

    /**
     * Re-records {@code step} into {@code graph}: the same lifecycle as a capture, then the lifecycle's
     * {@code endUpdate}; an applied update swaps the graph's window and retires the old one behind the replays
     * enqueued so far (prepare() already waited for them).
     */
    @Override
    public UpdateResult update(CoreGraph graph, CaptureOptions options, Consumer<GpuStream> step) {
        checkOwnGraph(graph, "update");
        lock.lock();
        try {
            checkUsable("update");
            policy.checkGraphChange(state(), "update of " + graph, id);
            if (graph.isClosed()) {
                throw new IllegalStateException("update: " + graph + " is closed");
            }
            refuseIfNested(graph, "update");
        } finally {
            lock.unlock();
        }
        GraphUpdateEvent event = new GraphUpdateEvent();
        event.begin();
        String outcome = "failed";
        try {
            UpdateResult result = runCapture(options, step, () -> endUpdate(graph));
            outcome = result.applied() ? "applied" : "rejected";
            return result;
        } finally {
            commitUpdateEvent(event, graph, "update", outcome);
        }
    }

    private static void commitUpdateEvent(GraphUpdateEvent event, CoreGraph graph, String kind, String outcome) {
        event.end();
        if (event.shouldCommit()) {
            event.graph = graph.id();
            event.kind = kind;
            event.outcome = outcome;
            event.commit();
        }
    }

    private UpdateResult endUpdate(CoreGraph graph) {
        return endingCapture("update of " + graph, () -> {
            checkOpen("update");
            if (graph.isClosed()) {
                throw new IllegalStateException("update: " + graph + " was closed while its update recorded");
            }
            checkJoinedBack("update");
            refuseOpenViews("update");
            CaptureLifecycle.UpdateOutcome outcome = lifecycle.endUpdate(graph.id(), graph.window());
            if (outcome.window() != null) {
                registerIntermediates();
                SealedWindow old = graph.swap(outcome.window());
                memory.retire(graph, old, outcome.window());
            } else {
                LOG.debug("stream #{}: update of {} rejected: {}", id, graph, outcome.result());
            }
            return outcome.result();
        });
    }

    /**
     * Ends this stream's capture with {@code end} under its lock; whatever happens, once it no longer records, the
     * streams that joined it leave and the runtime hears that a capture ended (after the lock, since that may close
     * deferred streams).
     */
    private <T> T endingCapture(String operation, Supplier<T> end) {
        lock.lock();
        try {
            return end.get();
        } catch (RuntimeException failure) {
            throw runtime.failed(operation, failure);
        } finally {
            if (!lifecycle.isRecording()) {
                dissolveGroup();
            }
            endPoolWindow();
            lock.unlock();
            if (!lifecycle.isRecording()) {
                runtime.captureEnded();
            }
        }
    }

    /**
     * Points every recorded launch of {@code graph} that passes {@code from} at {@code to}. Everything is checked
     * before anything changes; {@code to} gets the graph's hold first, and the replaced window's holds (so
     * {@code from}'s) are released behind the replays enqueued so far.
     */
    @Override
    public int rebind(CoreGraph graph, Buffer from, Buffer to) {
        checkOwnGraph(graph, "rebind");
        GraphUpdateEvent event = new GraphUpdateEvent();
        event.begin();
        String outcome = "failed";
        try {
            int patched = rebindNow(graph, from, to);
            outcome = "applied";
            return patched;
        } finally {
            commitUpdateEvent(event, graph, "rebind", outcome);
        }
    }

    private int rebindNow(CoreGraph graph, Buffer from, Buffer to) {
        CoreBuffer source = runtime.checkBuffer(from, "from");
        CoreBuffer target = runtime.checkBuffer(to, "to");
        if (source.byteSize() != target.byteSize()) {
            throw new IllegalArgumentException("to: " + target + " differs in size from from: " + source
                    + "; a rebind keeps every launch's sizes");
        }
        lock.lock();
        try {
            checkUsable("rebind");
            policy.checkGraphChange(state(), "rebind of " + graph, id);
            if (graph.isClosed()) {
                throw new IllegalStateException("rebind: " + graph + " is closed");
            }
            refuseIfNested(graph, "rebind");
            SealedWindow old = graph.window();
            GraphRebinding rebinding = GraphRebinding.of(old.recording(), source.storage(), target.storage());
            if (rebinding.changed().length == 0) {
                throw new IllegalArgumentException("from: " + source + " is not an argument of any launch of " + graph);
            }
            if (source == target) {
                return rebinding.changed().length;
            }
            List<Retainable> holds = rebinding.holdsAfter(old, source, target);
            SealedWindow next;
            try {
                next = old.rebound(lifecycle.rebind(old.graph(), old.recording(), rebinding.patched(),
                        rebinding.changed()), rebinding.patched(), holds);
            } catch (RuntimeException | Error failure) {
                // The backend may have patched some launches before failing (its rollback may fail too): the graph
                // keeps its recording and holds both buffers from now on, so nothing it may still pass is freed.
                if (!holds.contains(source) && source.retain()) {
                    holds.add(source);
                }
                SealedWindow kept = old.rebound(old.graph(), old.recording(), holds);
                graph.swap(kept);
                memory.retire(graph, old, kept);
                throw failure;
            }
            graph.swap(next);
            memory.retire(graph, old, next);
            return rebinding.changed().length;
        } catch (RuntimeException failure) {
            throw runtime.failed("rebind of " + graph, failure);
        } finally {
            lock.unlock();
        }
    }

    /** A graph a live parent replays as a child keeps its recording: the parent's copy uses its memory. */
    private static void refuseIfNested(CoreGraph graph, String operation) {
        if (graph.nested()) {
            throw new IllegalStateException(operation + ": " + graph + " is replayed inside another live graph (a child"
                    + " graph), whose copy of it uses its memory; close the parent first, or capture a new graph");
        }
    }

    private void checkOwnGraph(CoreGraph graph, String operation) {
        if (graph.owner() != this) {
            throw new IllegalArgumentException(operation + ": " + graph + " belongs to stream #" + graph.owner().id());
        }
    }

    /**
     * NO_CAPTURE to PREPARE. Replays still unsynchronised are waited for first (a bounded fence wait, not a full
     * synchronize), so that a replay failing during the warm-up is reported as the replay's failure naming its
     * graph, not as the warm-up step's.
     */
    @Override
    public void prepare() {
        prepare(CaptureOptions.defaults());
    }

    @Override
    public void prepare(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        locked("prepare", () -> {
            CorePool pool = runtime.checkPool(options.pool());
            if (blame.pending() && lifecycle.current() == CaptureState.NO_CAPTURE
                    && !runtime.anotherCaptureForbidsDeviceCalls(id)) {
                blame.hostSync(() -> {
                    memory.awaitAll("the replays before prepare()");
                    List<Throwable> failed = backend.drainErrors();
                    if (!failed.isEmpty()) {
                        RuntimeException first = failed.get(0) instanceof RuntimeException raw ? raw
                                : new DriverException("stream #" + id + " replay", failed.get(0));
                        failed.stream().skip(1).forEach(first::addSuppressed);
                        throw first;
                    }
                });
            }
            lifecycle.prepare();
            if (pool != null) {
                try {
                    pool.bind(this);
                } catch (RuntimeException refused) {
                    lifecycle.cancelCapture();
                    throw refused;
                }
            }
            windowPool = pool;
        });
    }

    @Override
    public void endWarmupPass() {
        settleWarmupMembers();
        locked("endWarmupPass", () -> {
            checkWarmupGuards();
            lifecycle.endWarmupPass();
            endPoolRun();
        });
    }

    @Override
    public void beginCapture() {
        beginCapture(CaptureOptions.defaults());
    }

    @Override
    public void beginCapture(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        if (lifecycle.current() == CaptureState.PREPARE) {
            settleWarmupMembers();
        }
        locked("beginCapture", () -> {
            if (options.pool() != windowPool && lifecycle.current() == CaptureState.PREPARE) {
                throw new GraphStateException("beginCapture: stream #" + id + " was prepared "
                        + (windowPool == null ? "without a graph pool" : "for " + windowPool) + " but the options "
                        + (options.pool() == null ? "name none" : "name " + options.pool()) + "; give the same pool "
                        + "to prepare(options) and beginCapture(options); the stream is still in PREPARE");
            }
            if (lifecycle.current() == CaptureState.PREPARE) {
                checkWarmupGuards();
            }
            endPoolRun();
            endWarmup();
            lifecycle.beginCapture(options);
        });
    }

    @Override
    public Graph endCapture() {
        return endingCapture("endCapture on stream #" + id, () -> {
            checkOpen("endCapture");
            refuseIfMember("endCapture");
            checkJoinedBack("endCapture");
            refuseOpenViews("endCapture");
            SealedWindow window = lifecycle.endCapture();
            registerIntermediates();
            CoreGraph graph = new CoreGraph(this, runtime.scope(), window, policy.graphKind());
            memory.adopt(graph);
            runtime.graphSealed(graph);
            runtime.observers().captured(id, graph.id(), window.nodeLabels().size(), window.captureDuration());
            return graph;
        });
    }

    @Override
    public void cancelCapture() {
        locked("cancelCapture", () -> {
            refuseIfMember("cancelCapture");
            joinBackForAbort();
            lifecycle.cancelCapture();
        });
    }

    private void locked(String operation, Runnable action) {
        boolean wasRecording = lifecycle.isRecording();
        lock.lock();
        try {
            checkOpen(operation);
            refuseIfMember(operation);
            action.run();
        } catch (RuntimeException failure) {
            throw runtime.failed(operation + " on stream #" + id, failure);
        } finally {
            if (wasRecording && !lifecycle.isRecording()) {
                dissolveGroup();
            }
            endPoolWindow();
            lock.unlock();
            if (wasRecording && !lifecycle.isRecording()) {
                runtime.captureEnded();
            }
        }
    }

    /** Whether this stream's open capture forbids device calls from {@code thread} on other streams. */
    boolean forbidsDeviceCallsFrom(Thread thread) {
        return lifecycle.blocksDeviceCallsFrom(thread);
    }

    /**
     * Re-runs a graph's recorded launches eagerly, one at a time, each followed by a bounded wait, a synchronize
     * and (checked mode) a look at the guards of the graph's buffers; the first that fails is reported.
     */
    @Override
    public GraphDiagnosis diagnose(CoreGraph graph) {
        lock.lock();
        try {
            checkUsable("diagnose");
            policy.checkHostSyncBesideCapture(runtime.anotherCaptureForbidsDeviceCalls(id), "diagnose", id);
            if (state() != CaptureState.NO_CAPTURE) {
                throw new GraphStateException("diagnose: stream #" + id + " is in " + state()
                        + "; diagnose a graph between captures (after endCapture() or cancelCapture())");
            }
            if (graph.isClosed()) {
                throw new IllegalStateException("diagnose: " + graph + " is closed");
            }
            memory.awaitAll("the work before a diagnosis");
            backend.synchronize();
            List<RecordedLaunch> launches = graph.window().recording().launches();
            for (int i = 0; i < launches.size(); i++) {
                RecordedLaunch step = launches.get(i);
                GraphRTException failure = diagnoseStep(graph, step, i);
                if (failure != null) {
                    return new GraphDiagnosis(graph.id(), launches.size(), i, LaunchRecorder.label(step), failure);
                }
            }
            return new GraphDiagnosis(graph.id(), launches.size(), -1, "", null);
        } catch (RuntimeException failure) {
            throw runtime.failed("diagnose of " + graph, failure);
        } finally {
            lock.unlock();
        }
    }

    private GraphRTException diagnoseStep(CoreGraph graph, RecordedLaunch step, int index) {
        try {
            backend.launch(step.kernel(), step.dims(), step.bindings());
            memory.awaitAll("diagnosis step " + index + " of " + graph);
            backend.synchronize();
            return checked.checkGraph(graph, "diagnosis step " + index + ": " + LaunchRecorder.label(step), backend)
                    .orElse(null);
        } catch (GraphRTException failure) {
            runtime.failed("diagnosis step " + index + " of " + graph, failure);
            return failure;
        } catch (RuntimeException raw) {
            return new DriverException("diagnosis step " + index + " of " + graph, raw);
        }
    }

    // ---- graphs and closing ------------------------------------------------------------------------

    /**
     * A graph's last holder let go: its destroy, unpin and buffer releases run after a fence shows its replays
     * finished. Never blocks on a busy stream: when another thread holds the lock (a host waiting while a Java
     * kernel closes the graph), or this thread is inside a release, the graph is queued for the next flush
     * point. A no-op once the stream is closed (closing released every graph).
     */
    @Override
    public void unused(CoreGraph graph) {
        memory.queueRelease(graph);
        if (lock.isHeldByCurrentThread() || !lock.tryLock()) {
            return;
        }
        try {
            if (!closed && !runtime.isLost()) {
                memory.flushPoint();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns finished releases to the pools so trim() can give them back; never blocks, never while recording.
     * A busy stream is skipped (a Java kernel may call trim() while the host holds the lock waiting for it); its
     * own next flush point reclaims.
     */
    void reclaim() {
        if (!lock.tryLock()) {
            return;
        }
        try {
            if (!closed) {
                memory.flushPoint();
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
        if (!closed && isMember()) {
            // Its driver stream is part of another stream's capture: closed to its user now, torn down when that
            // capture ends (its work is then joined back or the capture cancelled).
            if (!closeDeferred) {
                closeDeferred = true;
                runtime.closeLater(this);
                runtime.captureEnded(); // the capture may have ended since the check: then this close runs now
            }
            return;
        }
        if (!closed && !closeDeferred && lifecycle.current() == CaptureState.CAPTURE
                && runtime.anotherCaptureForbidsDeviceCalls(id)) {
            // Its own capture ends now: deferred, it could never end (endCapture refuses a closed stream), and
            // two streams closed while both record would each wait for the other forever.
            abandonCapture("the stream is closing");
        }
        if (!closed && runtime.anotherCaptureForbidsDeviceCalls(id)) {
            // Waiting for this stream's work or freeing now would be refused by the driver and would invalidate
            // the other capture: the stream is closed to its user at once and torn down when that capture ends.
            if (!closeDeferred) {
                closeDeferred = true;
                runtime.closeLater(this);
                runtime.captureEnded(); // the capture may have ended since the check: then this close runs now
            }
            return;
        }
        boolean abandoned = false;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            List<RuntimeException> failures = new ArrayList<>();
            abandoned = abandonCapture("the stream is closing", false);
            Duration drainBound = waitTimeout;
            try {
                memory.awaitAll("its work before closing");
                backend.synchronize();
            } catch (WaitTimeoutException stuck) {
                failures.add(stuck);
                drainBound = Duration.ofNanos(1);
            } catch (RuntimeException failure) {
                if (runtime.failed("close of stream #" + id, failure) instanceof DeviceLostException) {
                    drainBound = Duration.ofNanos(1);
                }
                LOG.warn("stream #{}: outstanding work failed while closing: {}", id, failure.toString());
            }
            attempt(failures, checked::forget);
            failures.addAll(memory.releaseEverything(drainBound));
            closed = true;
            attempt(failures, backend::close);
            runtime.streamClosed(this);
            memory.takeFailures().ifPresent(failures::add);
            if (runtime.isLost()) {
                failures.forEach(f -> LOG.warn("stream #{} of a lost runtime closed: {}", id, f.toString()));
                return;
            }
            if (!failures.isEmpty()) {
                RuntimeException first = failures.get(0);
                failures.stream().skip(1).forEach(first::addSuppressed);
                throw first;
            }
        } finally {
            lock.unlock();
            if (abandoned) {
                runtime.captureEnded(); // after this stream's lock: it may close deferred streams
            }
        }
    }

    /** Ends an open capture window by the abort path (the stream or its runtime is closing); never throws for it. */
    void abandonCapture(String why) {
        abandonCapture(why, !"the runtime is closing".equals(why));
    }

    /**
     * The abort path; returns whether a capture was abandoned. With {@code announce} the runtime hears at once that
     * the capture ended (which may close deferred streams, taking their locks); without it the caller does so after
     * releasing this stream's lock, so that no other stream's lock is ever taken under it.
     */
    private boolean abandonCapture(String why, boolean announce) {
        lock.lock();
        try {
            CaptureState was = lifecycle.current();
            if (closed || was == CaptureState.NO_CAPTURE) {
                return false;
            }
            joinBackForAbort();
            RuntimeException failure = lifecycle.abort(new IllegalStateException("stream #" + id
                    + " left its capture window: " + why));
            dissolveGroup();
            endPoolWindow();
            LOG.warn("stream #{} closed during {}: the capture was cancelled ({})", id, was,
                    failure.getSuppressed().length == 0 ? "cleanly" : "with suppressed errors");
        } finally {
            lock.unlock();
        }
        if (announce) {
            runtime.captureEnded();
        }
        return true;
    }

    private static void attempt(List<RuntimeException> failures, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException failure) {
            failures.add(failure);
        }
    }

    CoreRuntime runtime() {
        return runtime;
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen(String operation) {
        if (closed || closeDeferred) {
            throw new IllegalStateException(operation + ": stream #" + id + " is closed");
        }
        runtime.checkOpen(operation);
    }

    /** Open, and the calling thread may use it in the current capture state (the policy's thread rule). */
    private void checkUsable(String operation) {
        checkOpen(operation);
        recording().checkCaller(operation);
    }

    // ---- fork/join: a member's work goes to the origin's capture -------------------------------------

    /** Whether this stream joined another stream's capture (it is not that capture's origin). */
    private boolean isMember() {
        CaptureGroup joined = group;
        return joined != null && joined.origin() != this;
    }

    /** The origin of the capture this stream joined, or null (one read of {@link #group}). */
    private CoreStream joinedOriginStream() {
        CaptureGroup joined = group;
        return joined != null && joined.origin() != this ? joined.origin() : null;
    }

    /** The state the operation table sees: CAPTURE while joined to another stream's capture. */
    private CaptureState state() {
        return joinedOriginStream() != null ? CaptureState.CAPTURE : lifecycle.current();
    }

    /** The lifecycle that records this stream's work: the origin's while joined. */
    private CaptureLifecycle recording() {
        CoreStream origin = joinedOriginStream();
        return origin != null ? origin.lifecycle : lifecycle;
    }

    /** The memory that serves this stream's work: the origin's while joined (its window, info cache, holds). */
    private StreamMemory recordingMemory() {
        CoreStream origin = joinedOriginStream();
        return origin != null ? origin.memory : memory;
    }

    private PoolSlice allocateSlice(long bytes) {
        CoreStream origin = lockOrigin();
        try {
            if (origin != null) {
                return origin.memory.allocate(bytes);
            }
        } finally {
            unlockOrigin(origin);
        }
        CoreStream warmup = warmupOrigin;
        if (warmup != null && lifecycle.current() == CaptureState.NO_CAPTURE) {
            warmup.lock.lock(); // this stream's lock, then the origin's: the fork/join order
            try {
                if (warmupOrigin == warmup && warmup.lifecycle.current() == CaptureState.PREPARE) {
                    return warmup.memory.allocate(bytes); // primed in the warm-up's window
                }
            } finally {
                warmup.lock.unlock();
            }
        }
        return memory.allocate(bytes);
    }

    // ---- fork/join in a warm-up: the waiting stream takes part in it, as it will in the capture ----------

    /** The warm-up an event recorded now belongs to: this stream's own (PREPARE), the one it joined, or none. */
    private CoreStream warmupOf() {
        if (lifecycle.current() == CaptureState.PREPARE) {
            return this;
        }
        return warmupOrigin;
    }

    /** This stream waited for an event of {@code warmup}'s warm-up: it takes part in that warm-up (called under its lock). */
    private void joinWarmup(CoreStream warmup) {
        if (warmup == null || warmup == this || warmupOrigin == warmup || group != null
                || lifecycle.current() != CaptureState.NO_CAPTURE) {
            return;
        }
        warmup.lock.lock();
        try {
            if (warmup.lifecycle.current() == CaptureState.PREPARE && !warmup.closed) {
                warmupOrigin = warmup;
                warmup.warmupMembers.add(this);
                LOG.debug("stream #{} joined stream #{}'s warm-up", id, warmup.id());
            }
        } finally {
            warmup.lock.unlock();
        }
    }

    /**
     * Before a pass of this stream's warm-up ends (or the capture begins): waits for the work of every stream that
     * joined the warm-up, so what the pass closed there is free for the next pass or the recording, and (checked
     * mode) reads the guards of what it touched. Called without this stream's lock (a member's lock comes first).
     */
    private void settleWarmupMembers() {
        for (CoreStream member : List.copyOf(warmupMembers)) {
            member.settleForWarmup(this);
        }
    }

    private void settleForWarmup(CoreStream warmup) {
        lock.lock();
        try {
            if (closed || warmupOrigin != warmup || runtime.anotherCaptureForbidsDeviceCalls(id)) {
                return;
            }
            memory.awaitAll("its part of stream #" + warmup.id() + "'s warm-up pass");
            Optional<BufferOverrunException> overrun = checked.check(backend);
            memory.afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        } finally {
            lock.unlock();
        }
    }

    /** This stream's warm-up ended (the capture began, or the window closed): its members leave it. */
    private void endWarmup() {
        for (CoreStream member : warmupMembers) {
            member.warmupOrigin = null;
        }
        warmupMembers.clear();
    }

    /**
     * Checked mode, where a warm-up pass ends: waits for this stream's work and reads the guards of what it touched,
     * which also lets go of the buffers checked mode held for that, so the next pass or the recording finds their
     * slices free. An overrun in the warm-up is the step's own failure.
     */
    private void checkWarmupGuards() {
        if (!checked.on() || runtime.anotherCaptureForbidsDeviceCalls(id)) {
            return;
        }
        memory.awaitAll("the warm-up pass's work before its guards are read");
        Optional<BufferOverrunException> overrun = checked.check(backend);
        overrun.ifPresent(failure -> {
            throw failure;
        });
    }

    /**
     * While joined, also takes the origin's lock (its recording is shared; the order is always this stream's lock,
     * then the origin's); returns the origin to unlock, or null when not joined, also when the capture ended while
     * the lock was awaited (the group is dissolved under the origin's lock).
     */
    private CoreStream lockOrigin() {
        CaptureGroup joined = group;
        if (joined == null || joined.origin() == this) {
            return null;
        }
        CoreStream origin = joined.origin();
        origin.lock.lock();
        if (group != joined) {
            origin.lock.unlock();
            return null;
        }
        return origin;
    }

    private static void unlockOrigin(CoreStream origin) {
        if (origin != null) {
            origin.lock.unlock();
        }
    }

    /** Counts one recorded operation for the fork/join bookkeeping. */
    private void countOperation() {
        CaptureGroup joined = group;
        if (joined != null) {
            joined.operation(this);
        }
    }

    private void refuseIfMember(String operation) {
        CoreStream origin = joinedOriginStream();
        if (origin != null) {
            throw new GraphStateException(operation + ": stream #" + id + " joined stream #" + origin.id()
                    + "'s capture; only that stream begins, ends or cancels it");
        }
    }

    /**
     * Refuses to end a capture while a stream that joined it has work not joined back, before the driver would
     * (904): nothing changes, and the user can join it back (record on it, waitFor here) and end again. A member
     * its user closed is joined back here, since nobody else can.
     */
    private void checkJoinedBack(String operation) {
        CaptureGroup own = group;
        if (own == null) {
            return;
        }
        for (CoreStream member : own.members()) {
            if (member.closeDeferred) {
                joinBack(member);
            }
        }
        own.firstUnjoined().ifPresent(member -> {
            throw new CaptureRejectedException(operation + ": stream #" + member.id() + " joined this capture and has "
                    + "work not joined back into stream #" + id + "; record an event on it and make stream #" + id
                    + " wait for it (waitFor), then end the capture again: the capture is intact");
        });
    }

    /** Joins {@code member}'s work back into this origin's capture: an event on it, which this stream waits for. */
    private void joinBack(CoreStream member) {
        CaptureGroup own = group;
        Fence fence = policy.graphKind() == GraphKind.HARDWARE ? member.backend.recordFence() : null;
        CoreEvent event = new CoreEvent(member, fence, own, own.operations(member));
        if (fence != null && !backend.waitFor(member.backend, fence)) {
            throw new IllegalStateException("stream #" + id + " could not wait for stream #" + member.id());
        }
        own.waited(this, event);
    }

    /** Before a capture is abandoned: every member is joined back, so the driver can end it (no 904). */
    private void joinBackForAbort() {
        CaptureGroup own = group;
        if (own == null || own.origin() != this) {
            return;
        }
        Optional<CoreStream> unjoined;
        while ((unjoined = own.firstUnjoined()).isPresent()) {
            try {
                joinBack(unjoined.get());
            } catch (RuntimeException failure) {
                LOG.warn("stream #{}: joining stream #{} back before abandoning the capture failed: {}", id,
                        unjoined.get().id(), failure.toString());
                return;
            }
        }
    }

    /** The capture ended: its members leave it and its events can no longer be waited for. */
    private void dissolveGroup() {
        CaptureGroup own = group;
        if (own == null || own.origin() != this) {
            return;
        }
        own.end();
        for (CoreStream member : own.members()) {
            member.group = null;
        }
        group = null;
    }

    @Override
    public String toString() {
        CoreStream origin = joinedOriginStream();
        return "stream #" + id + " (" + (origin != null ? "CAPTURE, joined to stream #" + origin.id()
                : lifecycle.current()) + ")";
    }
}
