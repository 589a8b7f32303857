package dev.graphrt.core.lifecycle;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.core.events.CaptureEvent;
import dev.graphrt.core.memory.CaptureMemorySession;
import dev.graphrt.core.memory.DropQueue;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.metadata.MetadataCache;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.core.recording.NodeLabels;
import dev.graphrt.core.recording.RecordingDiff;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.UpdateRejectedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one stream's capture lifecycle: moves {@link StreamCaptureState} and calls the core's work and the
 * backend's hooks in the order of DESIGN.md section 2. The hooks are those of the capture support the stream
 * offered when it opened ({@link WindowCapture}: driver capture or software graphs), chosen once in the constructor,
 * so no step here branches on the graph kind. Every failure after a transition runs the abort path, which returns
 * the stream to NO_CAPTURE able to capture again, keeps the first error as the primary and suppresses later ones
 * onto it. The stream reaches the open window only through the operations here (allocate, record, hold, reject,
 * check the caller), never through the window's session or recorder. Not thread-safe: the owning stream
 * serialises calls.
 */
public final class CaptureLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureLifecycle.class);
    /**
     * Free one-alignment slices kept in the persistent pool at prepare() when the window may not grow it, so
     * that new info blocks of up to one alignment unit (64 words at 256-byte alignment) recorded without a
     * warm-up need no driver allocation inside the capture.
     */
    static final int INFO_HEADROOM_SLICES = 32;

    private final long streamId;
    private final StreamCaptureState state = new StreamCaptureState();
    private final BackendStream backend;
    /** The stream's capture support, chosen when the stream opened. */
    private final WindowCapture capture;

    private final OperationPolicy policy;
    private final MemoryManager memory;
    private final MetadataCache metadata;
    private final DropQueue drops;
    private final LongSupplier graphIds;
    private final LongSupplier stampIds;
    private final Duration waitTimeout;

    private @Nullable CaptureMemorySession session;
    private @Nullable LaunchRecorder recorder;
    private List<Retainable> windowHolds = new ArrayList<>();
    private long windowStamp;
    private final List<String> lazyRejections = new ArrayList<>();
    private boolean recordedWrites;
    private volatile CaptureMode mode = CaptureMode.THREAD_LOCAL;
    private volatile @Nullable Thread owner;
    private long beganNanos;
    private @Nullable CaptureEvent event;
    /** Takes a sealed graph whose destroy failed after its capture was rejected, to try it again later. */
    private Consumer<BackendGraph> failedDestroys = graph -> {};

    public CaptureLifecycle(
            long streamId,
            BackendStream backend,
            OperationPolicy policy,
            MemoryManager memory,
            MetadataCache metadata,
            DropQueue drops,
            LongSupplier graphIds,
            LongSupplier stampIds,
            Duration waitTimeout) {
        this.streamId = streamId;
        this.backend = backend;
        this.capture = WindowCapture.of(backend.capture());
        if (capture.kind() != policy.graphKind()) {
            throw new IllegalStateException("backend " + policy.backend() + ": stream #" + streamId + " offers "
                    + capture.kind() + " graphs, but the backend's first stream offered " + policy.graphKind()
                    + "; every stream of a backend must offer the same capture support");
        }
        this.policy = policy;
        this.memory = memory;
        this.metadata = metadata;
        this.drops = drops;
        this.graphIds = graphIds;
        this.stampIds = stampIds;
        this.waitTimeout = waitTimeout;
    }

    /**
     * Where a backend graph goes whose destroy failed when its capture was rejected after the backend sealed it (the
     * stream tries it again at its next synchronize and at close, as any failed destroy); by default nowhere.
     */
    public void onFailedDestroy(Consumer<BackendGraph> sink) {
        failedDestroys = Objects.requireNonNull(sink, "sink");
    }

    /**
     * NO_CAPTURE to PREPARE: refuse if earlier work failed unreported; arm the pools (with info-buffer headroom
     * where the window may not grow them); cache to CAPTURE mode; the backend's hook.
     */
    public void prepare() {
        state.require(StreamCaptureState.Call.PREPARE);
        List<Throwable> queued = backend.drainErrors();
        if (!queued.isEmpty()) {
            GraphStateException failure = new GraphStateException(
                    "prepare: stream #" + streamId + " has "
                            + queued.size()
                            + " failed operation(s) not yet reported (the first is the cause); the stream "
                            + "stays in NO_CAPTURE and prepare() may be called again",
                    queued.get(0));
            queued.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
        state.prepare();
        LOG.debug("stream #{}: NO_CAPTURE -> PREPARE", streamId);
        try {
            session = memory.openSession(streamId, policy.windowMayGrowPool());
            if (!policy.windowMayGrowPool()) {
                openSession().ensureFree(memory.align(1), INFO_HEADROOM_SLICES);
            }
            metadata.enterCaptureMode();
            backend.onPrepare();
        } catch (RuntimeException | Error failure) {
            throw abort(failure);
        }
    }

    /**
     * Ends one warm-up pass (priming keeps one pass's working set, not the sum of all passes). Waits for the
     * pass's work, so a kernel that failed in it fails this call: the error is the step's own, and must not
     * surface later blamed on a replay.
     */
    public void endWarmupPass() {
        if (state.current() != CaptureState.PREPARE) {
            throw new GraphStateException("endWarmupPass: the stream is in " + state.current()
                    + "; warm-up passes exist only between prepare() and beginCapture()");
        }
        drops.flushAndWait(waitTimeout, "the warm-up pass's work");
        openSession().endPass();
        List<Throwable> failed = backend.drainErrors();
        if (!failed.isEmpty()) {
            RuntimeException failure = failed.get(0) instanceof GraphRTException known
                    ? known
                    : new DriverException("stream #" + streamId + " warm-up pass", failed.get(0));
            failed.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /**
     * PREPARE to CAPTURE: move first; flush deferred frees and wait for them (a host sync is still legal here,
     * and the recorded run must find the warm-up's closed slices free); end priming; open the recording.
     */
    public void beginCapture(CaptureOptions options) {
        state.require(StreamCaptureState.Call.BEGIN);
        policy.checkMode(options.mode());
        state.begin();
        LOG.debug("stream #{}: PREPARE -> CAPTURE ({})", streamId, options.mode());
        try {
            drops.flushAndWait(waitTimeout, "the warm-up's work before the capture opens");
            openSession().endPriming();
            mode = options.mode();
            owner = Thread.currentThread();
            beganNanos = System.nanoTime();
            lazyRejections.clear();
            recordedWrites = false;
            recorder = capture.newRecorder();
            windowHolds = new ArrayList<>();
            windowStamp = stampIds.getAsLong();
            event = new CaptureEvent();
            event.begin();
            capture.open(mode);
        } catch (RuntimeException | Error failure) {
            throw abort(failure);
        }
    }

    /** CAPTURE to NO_CAPTURE: move first, close the window, validate, pin, commit metadata, flush frees. */
    public SealedWindow endCapture() {
        state.require(StreamCaptureState.Call.END);
        checkCaller("endCapture");
        state.end();
        BackendGraph graph = null;
        SealedWindow sealed;
        try {
            RecordedLaunches recording = openRecorder().seal();
            graph = capture.close(recording);
            validate();
            sealed = seal(graph, recording, "sealed");
        } catch (RuntimeException | Error failure) {
            if (graph != null) {
                try {
                    backend.destroy(graph);
                } catch (RuntimeException | Error later) {
                    failure.addSuppressed(later);
                    failedDestroys.accept(graph); // a failed destroy must not leak the graph for good
                }
            }
            throw abort(failure);
        }
        flushAfterWindow();
        return sealed;
    }

    /**
     * CAPTURE to NO_CAPTURE for {@code Graph.update} of the live graph {@code userGraphId}, whose window is
     * {@code old}: the new recording must have old's shape ({@link RecordingDiff}); then the window is validated,
     * pinned under a new id, and only then handed to the backend, which applies it in place
     * ({@code DriverCapture.closeInto}) or seals it afresh ({@code SoftwareGraphs.update}). A
     * rejection, the core's or the driver's, undoes the window (pins, info buffers, holds) and leaves old as it
     * was. Old itself is the caller's to retire.
     */
    public UpdateOutcome endUpdate(long userGraphId, SealedWindow old) {
        state.require(StreamCaptureState.Call.END);
        checkCaller("update");
        state.end();
        SealedWindow sealed;
        try {
            RecordedLaunches recording = openRecorder().seal();
            Optional<UpdateResult.Rejected> differs = RecordingDiff.firstDifference(
                    userGraphId,
                    old.recording(),
                    old.nodeLabels(),
                    recording,
                    openRecorder().labels());
            if (differs.isPresent()) {
                RuntimeException hookFailure = cleanUp(null, "update rejected");
                if (hookFailure != null) {
                    throw hookFailure; // the window is undone; a failing backend hook is not a clean rejection
                }
                return new UpdateOutcome(null, differs.get());
            }
            validate();
            NodeLabels labels = openRecorder().labels();
            Pins pins;
            BackendGraph graph;
            // The window is pinned before the driver ends its capture: no device free may fall in between.
            try (MemoryManager.FreeHold held = memory.holdFrees()) {
                pins = pinWindow();
                try {
                    graph = capture.closeInto(old.graph(), recording);
                } catch (UpdateRejectedException refused) {
                    unpinUnused(pins, null);
                    RuntimeException hookFailure = cleanUp(null, "update rejected by the driver");
                    if (hookFailure != null) {
                        hookFailure.addSuppressed(refused);
                        throw hookFailure;
                    }
                    int node = refused.nodeIndex();
                    String kernel = node >= 0 && node < recording.launches().size()
                            ? recording.launches().get(node).kernel().entryPoint()
                            : "";
                    return new UpdateOutcome(
                            null,
                            new UpdateResult.Rejected(
                                    userGraphId,
                                    UpdateResult.Difference.DRIVER,
                                    node,
                                    kernel,
                                    String.valueOf(refused.getMessage())));
                } catch (RuntimeException | Error failure) {
                    unpinUnused(pins, failure);
                    throw failure;
                }
            }
            sealed = finish(pins, graph, labels, recording, "updated");
        } catch (RuntimeException | Error failure) {
            throw abort(failure);
        }
        flushAfterWindow();
        return new UpdateOutcome(
                sealed,
                new UpdateResult.Applied(userGraphId, sealed.nodeLabels().size()));
    }

    /** Drops the pins of a window no graph took (nothing ever ran on them); failures join {@code primary}. */
    private void unpinUnused(Pins pins, @Nullable Throwable primary) {
        Throwable first = attempt(primary, () -> memory.unpin(pins.graphId()));
        first = attempt(first, () -> metadata.release(pins.graphId()));
        if (first != null && first != primary) {
            throw first instanceof RuntimeException r ? r : new IllegalStateException(first);
        }
    }

    /**
     * {@code Graph.rebind} of {@code graph} (between captures): its launches at {@code changed} now bind other
     * buffers, as {@code after} says. A driver patches its graph ({@code DriverCapture.rebind}); a software graph
     * is updated with the patched recording ({@code SoftwareGraphs.update}). Returns the graph to replay from now on.
     */
    public BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
        return capture.rebind(graph, before, after, changed);
    }

    /** What {@link #endUpdate} did: the new window (applied), or why not (rejected; window is null). */
    public record UpdateOutcome(@Nullable SealedWindow window, UpdateResult result) {}

    /** Pins the window to a new graph id, commits its info buffers and hands its holds to the sealed window. */
    private SealedWindow seal(BackendGraph graph, RecordedLaunches recording, String outcome) {
        return finish(pinWindow(), graph, openRecorder().labels(), recording, outcome);
    }

    /** A window's pins: the id its slices and info buffers are pinned to, and the bytes. */
    private record Pins(long graphId, long bytes) {}

    private Pins pinWindow() {
        long graphId = graphIds.getAsLong();
        long pinned = openSession().pinTo(graphId);
        metadata.commit(graphId);
        session = null;
        return new Pins(graphId, pinned);
    }

    private SealedWindow finish(
            Pins pins, BackendGraph graph, NodeLabels labels, RecordedLaunches recording, String outcome) {
        long graphId = pins.graphId();
        long pinned = pins.bytes();
        Duration took = Duration.ofNanos(System.nanoTime() - beganNanos);
        List<Retainable> retained = List.copyOf(windowHolds);
        recorder = null;
        windowHolds = new ArrayList<>();
        commitEvent(graphId, labels.size(), outcome);
        LOG.debug(
                "stream #{}: CAPTURE -> NO_CAPTURE, graph #{} {} ({} nodes, {} B pinned, {} buffers retained)",
                streamId,
                graphId,
                outcome,
                labels.size(),
                pinned,
                retained.size());
        return new SealedWindow(graphId, graph, pinned, labels, took, retained, recording, recordedWrites);
    }

    /**
     * Releases deferred while recording may run now. They fail on their own (reported at the next synchronize
     * or close); a fence that cannot be recorded now is tried again at the next flush point. Neither is blamed
     * on the capture that just succeeded.
     */
    private void flushAfterWindow() {
        try {
            flushReleases();
        } catch (RuntimeException failure) {
            LOG.warn("stream #{}: deferred releases wait for a later flush: {}", streamId, failure.toString());
        }
    }

    /** Fences and reclaims deferred releases where the policy allows it in the current state. */
    private void flushReleases() {
        if (policy.release(state.current()) == OperationPolicy.ReleaseAction.FENCE_AND_RECLAIM) {
            drops.flush();
        }
    }

    private void validate() {
        openSession().doomed().ifPresent(reason -> {
            throw new GraphNotRelaunchableException(
                    "endCapture: stream #" + streamId + "'s window cannot become a " + "replayable graph: " + reason);
        });
        if (!lazyRejections.isEmpty()) {
            throw new CaptureRejectedException("endCapture: stream #" + streamId + "'s window holds "
                    + lazyRejections.size() + " operation(s) this backend cannot record: "
                    + String.join("; ", lazyRejections));
        }
    }

    /** PREPARE or CAPTURE to NO_CAPTURE by the user's choice; a failing backend hook is reported after cleanup. */
    public void cancelCapture() {
        state.require(StreamCaptureState.Call.CANCEL);
        checkCaller("cancelCapture");
        LOG.debug("stream #{}: {} -> NO_CAPTURE (cancelled)", streamId, state.current());
        RuntimeException hookFailure = cleanUp(null, "cancelled");
        if (hookFailure != null) {
            throw hookFailure;
        }
    }

    /**
     * The abort path: back to NO_CAPTURE first, then undo everything the window holds. Asserts nothing; each
     * step's failure is suppressed onto {@code primary}, which is returned for the caller to throw.
     */
    public RuntimeException abort(Throwable primary) {
        LOG.warn("stream #{}: capture window aborted: {}", streamId, primary.toString());
        cleanUp(primary, "aborted");
        if (primary instanceof RuntimeException runtime) {
            return runtime;
        }
        if (primary instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(primary);
    }

    private @Nullable RuntimeException cleanUp(@Nullable Throwable primary, String outcome) {
        state.abort();
        Throwable first = primary;
        first = attempt(first, capture::abort);
        if (session != null) {
            first = attempt(first, session::abort);
            session = null;
        }
        first = attempt(first, metadata::discard);
        List<Retainable> held = windowHolds;
        windowHolds = new ArrayList<>();
        for (Retainable buffer : held) {
            first = attempt(first, buffer::release);
        }
        recorder = null;
        lazyRejections.clear();
        first = attempt(first, this::flushReleases);
        commitEvent(0, 0, outcome);
        if (first == null || first == primary) {
            return null;
        }
        return first instanceof RuntimeException r ? r : new IllegalStateException(first);
    }

    private static @Nullable Throwable attempt(@Nullable Throwable first, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error failure) {
            if (first == null) {
                return failure;
            }
            first.addSuppressed(failure);
        }
        return first;
    }

    private void commitEvent(long graphId, int nodes, String outcome) {
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.stream = streamId;
                event.graph = graphId;
                event.nodes = nodes;
                event.outcome = outcome;
                event.commit();
            }
            event = null;
        }
    }

    /**
     * The stamp of the open recording: a buffer stamped with it is already retained by the window (and, once
     * sealed, by its graph).
     */
    public long windowStamp() {
        return windowStamp;
    }

    /** Adds a hold (already taken) to the open recording: the graph keeps it until the graph is released. */
    public void holdInWindow(Retainable buffer) {
        windowHolds.add(buffer);
    }

    /**
     * Notes that the driver recorded a host-to-device write or a device copy into the window: a node the core's
     * recording does not hold, which a rebind leaves as it is (so the buffers it uses stay held).
     */
    public void noteRecordedWrite() {
        recordedWrites = true;
    }

    /** Notes an operation the window cannot hold; {@code endCapture} will fail naming it. */
    public void rejectLazily(String description) {
        lazyRejections.add(description);
    }

    public CaptureState current() {
        return state.current();
    }

    /**
     * Whether this window forbids device calls (fence queries, frees) from {@code thread} on other streams of the
     * context: a hardware capture in GLOBAL mode forbids them from every thread, one in THREAD_LOCAL mode from
     * its own thread; RELAXED forbids nothing. The driver refuses such a call and invalidates the capture.
     */
    public boolean blocksDeviceCallsFrom(Thread thread) {
        return state.current() == CaptureState.CAPTURE && capture.forbidsDeviceCallsFrom(thread, mode, owner);
    }

    public boolean isRecording() {
        return state.isRecording();
    }

    /**
     * Serves an allocation inside the window (PREPARE or CAPTURE) from the persistent pool: primed during the
     * warm-up, pinned to the graph at the end.
     */
    public PoolSlice allocate(long bytes) {
        if (session == null) {
            throw new IllegalStateException("stream #" + streamId + " has no capture window to allocate in");
        }
        return openSession().allocate(bytes);
    }

    /** Records a launch into the open recording (the graph's own, for a software graph; a label for hardware). */
    public void recordLaunch(RecordedLaunch launch) {
        openRecorder().add(launch);
    }

    /**
     * Records the replay of a graph this stream sealed earlier into the open recording: for a software graph its
     * launches become the new graph's, for a hardware graph the driver recorded the child (the core keeps a
     * label). The caller holds the child and its buffers in the window first.
     */
    public void recordChild(SealedWindow child) {
        openRecorder().addChild(child.graphId(), child.graph().nodeCount(), child.recording());
    }

    private LaunchRecorder openRecorder() {
        if (recorder == null) {
            throw new IllegalStateException("stream #" + streamId + " is not recording");
        }
        return recorder;
    }

    /** Refuses the calling thread while recording, unless it is the capturing one or the mode is RELAXED. */
    public void checkCaller(String operation) {
        policy.checkThread(state.current(), mode, owner, operation, streamId);
    }

    /** The window's memory session; only called while a window is open, which is when it exists. */
    private CaptureMemorySession openSession() {
        if (session == null) {
            throw new IllegalStateException("stream #" + streamId + " has no capture window open");
        }
        return session;
    }
}
