package dev.graphrt.core.lifecycle;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.UnsupportedCapabilityException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * DESIGN.md section 3 in one class: what each stream operation does in each capture state. The core asks
 * here, identically for every backend; the backend's declared capabilities choose between the documented
 * branches. Every refusal is a {@link CaptureRejectedException} whose message names the operation, the
 * reason and the fix.
 */
public final class OperationPolicy {

    /** What a launch does. */
    public enum LaunchAction {
        RUN,
        RECORD_IN_DRIVER,
        RECORD_IN_CORE
    }

    /** What a host-to-device write does. */
    public enum WriteAction {
        RUN,
        RECORD,
        DEFER_REJECTION
    }

    /** What a device-to-device copy within a runtime does. */
    public enum CopyAction {
        RUN,
        RECORD_IN_DRIVER,
        DEFER_REJECTION
    }

    /** What a collective operation of a communicator does. */
    public enum CollectiveAction {
        RUN,
        RECORD_IN_DRIVER,
        RECORD_IN_CORE,
        DEFER_REJECTION
    }

    /** What replaying another graph does. */
    public enum ReplayAction {
        RUN,
        RECORD_IN_DRIVER,
        RECORD_IN_CORE,
        DEFER_REJECTION
    }

    /** What a flush point does with the releases deferred behind the stream's work. */
    public enum ReleaseAction {
        FENCE_AND_RECLAIM,
        KEEP_UNTIL_THE_WINDOW_ENDS
    }

    /** Where an allocation comes from. */
    public enum AllocationSource {
        DYNAMIC_POOL,
        PERSISTENT_PRIMED,
        PERSISTENT_WINDOW
    }

    private final String backend;
    private final Set<Capability> capabilities;
    private final GraphKind graphKind;

    public OperationPolicy(String backend, Set<Capability> capabilities, GraphKind graphKind) {
        this.backend = backend;
        this.capabilities = Set.copyOf(capabilities);
        this.graphKind = graphKind;
    }

    public LaunchAction launch(CaptureState state) {
        if (state != CaptureState.CAPTURE) {
            return LaunchAction.RUN;
        }
        return graphKind == GraphKind.HARDWARE ? LaunchAction.RECORD_IN_DRIVER : LaunchAction.RECORD_IN_CORE;
    }

    public AllocationSource allocation(CaptureState state) {
        return switch (state) {
            case NO_CAPTURE -> AllocationSource.DYNAMIC_POOL;
            case PREPARE -> AllocationSource.PERSISTENT_PRIMED;
            case CAPTURE -> AllocationSource.PERSISTENT_WINDOW;
        };
    }

    /** Whether a capture window may grow the persistent pool (otherwise the allocation is refused). */
    public boolean windowMayGrowPool() {
        return capabilities.contains(Capability.MID_CAPTURE_ALLOCATION);
    }

    public WriteAction write(CaptureState state) {
        if (state != CaptureState.CAPTURE) {
            return WriteAction.RUN;
        }
        return capabilities.contains(Capability.RECORDS_WRITES) ? WriteAction.RECORD : WriteAction.DEFER_REJECTION;
    }

    /**
     * A device-to-device copy runs outside a recording. While recording, a hardware driver records it like a launch;
     * the core's software recording holds launches only, so there it is rejected lazily and {@code endCapture} names
     * it (as a write without RECORDS_WRITES is).
     */
    public CopyAction copy(CaptureState state) {
        if (state != CaptureState.CAPTURE) {
            return CopyAction.RUN;
        }
        return graphKind == GraphKind.HARDWARE ? CopyAction.RECORD_IN_DRIVER : CopyAction.DEFER_REJECTION;
    }

    /**
     * A collective runs outside a recording. While recording, a hardware driver records it (NCCL's calls are
     * capturable); a software recording holds launches, so it records a collective the backend made a launch of
     * ({@code asLaunch}) and rejects any other lazily, {@code endCapture} naming it.
     */
    public CollectiveAction collective(CaptureState state, boolean asLaunch) {
        if (state != CaptureState.CAPTURE) {
            return CollectiveAction.RUN;
        }
        if (graphKind == GraphKind.HARDWARE) {
            return CollectiveAction.RECORD_IN_DRIVER;
        }
        return asLaunch ? CollectiveAction.RECORD_IN_CORE : CollectiveAction.DEFER_REJECTION;
    }

    /** Communicators need COLLECTIVES. */
    public void checkCollectives(String operation) {
        if (!capabilities.contains(Capability.COLLECTIVES)) {
            throw new UnsupportedCapabilityException(backend, Capability.COLLECTIVES, operation);
        }
    }

    /**
     * Making a communicator waits for its peers, and a capture records one device's work: refused while the stream
     * records, the capture intact.
     */
    public void checkCommunicatorSetup(CaptureState state, String operation, long streamId) {
        if (state == CaptureState.CAPTURE) {
            throw new CaptureRejectedException(operation + ": stream #" + streamId + " is recording a capture, and "
                    + "making a communicator waits for its peers; the capture is still intact: make it before "
                    + "prepare() or after endCapture()");
        }
    }

    /**
     * A copy between runtimes (devices) waits for its completion, and a capture records one device's work: it is
     * refused eagerly while the stream records, and the capture stays intact.
     */
    public void checkCopyBetweenRuntimes(CaptureState state, long streamId) {
        if (state == CaptureState.CAPTURE) {
            throw new CaptureRejectedException("copy: stream #" + streamId + " is recording a capture, and a copy "
                    + "between runtimes waits for its completion; the capture is still intact: copy before prepare() "
                    + "or after endCapture()");
        }
    }

    /** Reads, syncs, flushes and profiling are refused eagerly while recording, before the driver sees them. */
    public void checkHostSync(CaptureState state, String operation, long streamId) {
        if (state == CaptureState.CAPTURE) {
            throw new CaptureRejectedException(operation + ": stream #" + streamId + " is recording a capture, "
                    + "and a host synchronisation would invalidate it; the capture is still intact: "
                    + "call endCapture() first, then " + operation);
        }
    }

    /**
     * A host synchronisation of a stream while another stream's hardware capture forbids device calls from this
     * thread (GLOBAL mode: any thread; THREAD_LOCAL: its own) is refused the same way, before the driver refuses
     * it and invalidates that capture.
     */
    public void checkHostSyncBesideCapture(boolean anotherCaptureForbids, String operation, long streamId) {
        if (anotherCaptureForbids) {
            throw new CaptureRejectedException(operation + ": another stream of this runtime records a capture that "
                    + "forbids device calls from this thread, and a host synchronisation of stream #" + streamId
                    + " would invalidate it; that capture is still intact: end it first, or call " + operation
                    + " from another thread (THREAD_LOCAL mode) or capture in RELAXED mode");
        }
    }

    /**
     * Replaying another graph runs outside a recording. While recording it becomes part of the new graph where
     * the backend declares NESTED_GRAPHS (a hardware driver records it as a child node; for a software graph the
     * core records the child's launches); otherwise it is rejected lazily and {@code endCapture} names it.
     */
    public ReplayAction replay(CaptureState state) {
        if (state != CaptureState.CAPTURE) {
            return ReplayAction.RUN;
        }
        if (!capabilities.contains(Capability.NESTED_GRAPHS)) {
            return ReplayAction.DEFER_REJECTION;
        }
        return graphKind == GraphKind.HARDWARE ? ReplayAction.RECORD_IN_DRIVER : ReplayAction.RECORD_IN_CORE;
    }

    /**
     * Frees and buffer closes are always deferred; a flush point fences and reclaims them except while
     * recording, when a fence would be captured (or a host query invalidate a hardware capture): they wait for
     * the end of the window.
     */
    public ReleaseAction release(CaptureState state) {
        return state == CaptureState.CAPTURE
                ? ReleaseAction.KEEP_UNTIL_THE_WINDOW_ENDS
                : ReleaseAction.FENCE_AND_RECLAIM;
    }

    /**
     * Outside a recording any thread may use a stream. While recording, only the capturing thread ({@code owner})
     * may, unless the mode is RELAXED.
     */
    public void checkThread(
            CaptureState state, CaptureMode mode, @Nullable Thread owner, String operation, long streamId) {
        if (state == CaptureState.CAPTURE && mode != CaptureMode.RELAXED && owner != Thread.currentThread()) {
            throw new CaptureRejectedException(operation + ": stream #" + streamId + " is recording in " + mode
                    + " mode on thread '" + (owner == null ? "(none)" : owner.getName()) + "', and thread '"
                    + Thread.currentThread().getName()
                    + "' may not use it; capture with CaptureMode.RELAXED to allow other threads");
        }
    }

    /**
     * Changing a live graph ({@code Graph.update}, {@code Graph.rebind}) needs GRAPH_UPDATE, and happens between
     * captures of the graph's stream: an update runs its own capture, and a rebind while the stream records could
     * change a graph the recording replays.
     */
    public void checkGraphChange(CaptureState state, String operation, Object graph, long streamId) {
        // the names joined only for a refusal: an update or a rebind that passes builds no message
        if (!capabilities.contains(Capability.GRAPH_UPDATE)) {
            throw new UnsupportedCapabilityException(backend, Capability.GRAPH_UPDATE, operation + " of " + graph);
        }
        if (state != CaptureState.NO_CAPTURE) {
            throw new GraphStateException(operation + " of " + graph + ": stream #" + streamId + " is in " + state
                    + "; change a graph between captures (after endCapture() or cancelCapture())");
        }
    }

    /**
     * Recording an event or waiting for one works between captures and in PREPARE (stream order, a fence); while the
     * stream records it would make the capture span streams, which needs MULTI_STREAM_CAPTURE.
     */
    public void checkEvent(CaptureState state, String operation) {
        if (state == CaptureState.CAPTURE && !capabilities.contains(Capability.MULTI_STREAM_CAPTURE)) {
            throw new UnsupportedCapabilityException(
                    backend, Capability.MULTI_STREAM_CAPTURE, operation + " while the stream records a capture");
        }
    }

    /**
     * Refuses a declaration the core cannot honour: the core's software recording does not record writes, and
     * COLLECTIVES is declared exactly when the backend offers its collectives ({@code hasCollectives}).
     */
    public void checkDeclared(boolean hasCollectives) {
        if (capabilities.contains(Capability.COLLECTIVES) != hasCollectives) {
            throw new IllegalArgumentException("backend " + backend
                    + (hasCollectives
                            ? " offers collectives but does not declare COLLECTIVES"
                            : " declares COLLECTIVES but offers no collectives (Backend.collectives() is empty)"));
        }
        if (graphKind == GraphKind.SOFTWARE && capabilities.contains(Capability.RECORDS_WRITES)) {
            throw new IllegalArgumentException("backend " + backend + " declares RECORDS_WRITES, which the core's "
                    + "software recording does not implement yet");
        }
    }

    /**
     * Whether the device may be asked to free memory while a capture window is open: a software recording never
     * reaches the driver; a hardware capture could be invalidated by a free.
     */
    public boolean freesDuringCapture() {
        return graphKind == GraphKind.SOFTWARE;
    }

    /**
     * Whether a capture can forbid device calls on other streams (fence queries, frees): a hardware capture can (the
     * driver refuses them and invalidates it), the core's software recording never does.
     */
    public boolean capturesForbidDeviceCalls() {
        return graphKind == GraphKind.HARDWARE;
    }

    /** What an event recorded inside a capture is made of. */
    public enum CaptureEventKind {
        /** A driver event recorded into the graph (hardware graphs): other streams wait for it on the device. */
        DRIVER_EVENT,
        /** Only the position in the core's recording (software graphs). */
        POSITION
    }

    public CaptureEventKind captureEvent() {
        return graphKind == GraphKind.HARDWARE ? CaptureEventKind.DRIVER_EVENT : CaptureEventKind.POSITION;
    }

    /** Whether an event recorded now is an event of the capture (fork/join) rather than a plain fence. */
    public boolean eventJoinsCapture(CaptureState state) {
        return state == CaptureState.CAPTURE;
    }

    /**
     * While a stream records, it may wait only for events recorded in its capture: one recorded before it began marks
     * no point in the graph.
     */
    public void checkWaitForOutsideEvent(CaptureState state, String event, long streamId) {
        if (state == CaptureState.CAPTURE) {
            throw new CaptureRejectedException("waitFor: " + event + " was recorded outside the capture stream #"
                    + streamId + " takes part in; a capture can wait only for events recorded in it");
        }
    }

    /** A stream joins another stream's capture or warm-up only from NO_CAPTURE, on its own. */
    public boolean mayJoinAnotherCapture(CaptureState own) {
        return own == CaptureState.NO_CAPTURE;
    }

    /** Whether a stream in {@code state} runs its warm-up passes (PREPARE: events, pass ends and begin settle it). */
    public boolean warmingUp(CaptureState state) {
        return state == CaptureState.PREPARE;
    }

    /** A stream that waits for an event of a warm-up joins it while that warm-up still runs. */
    public boolean joinsWarmup(CaptureState origin) {
        return warmingUp(origin);
    }

    /** Where a stream's allocation comes from when it takes part in another stream's warm-up: that window's. */
    public boolean primesInWarmup(CaptureState own, CaptureState origin) {
        return mayJoinAnotherCapture(own) && warmingUp(origin);
    }

    /** What a graph pool does with an allocation of the window in each state. */
    public enum PoolAction {
        /** Outside a window: nothing. */
        NONE,
        /** The warm-up: private memory, noted to tell outputs from temporaries. */
        NOTE_WARMUP,
        /** The recording: a temporary may be lent an intermediate of the pool. */
        LEND_TEMPORARIES
    }

    public PoolAction pool(CaptureState state) {
        return switch (state) {
            case NO_CAPTURE -> PoolAction.NONE;
            case PREPARE -> PoolAction.NOTE_WARMUP;
            case CAPTURE -> PoolAction.LEND_TEMPORARIES;
        };
    }

    /** A diagnosis re-runs a graph's launches eagerly: only between captures of its stream. */
    public void checkDiagnose(CaptureState state, long streamId) {
        if (state != CaptureState.NO_CAPTURE) {
            throw new GraphStateException("diagnose: stream #" + streamId + " is in " + state
                    + "; diagnose a graph between captures (after endCapture() or cancelCapture())");
        }
    }

    /** Whether an operation in this state is one of the capture's recorded operations (fork/join counts them). */
    public boolean countsAsRecorded(CaptureState state) {
        return state == CaptureState.CAPTURE;
    }

    /**
     * A stream closed while its own capture records and another capture forbids device calls: its capture is
     * abandoned at once, since a deferred close could never end it (endCapture refuses a closed stream).
     */
    public boolean abandonsOnDeferredClose(CaptureState state) {
        return state == CaptureState.CAPTURE;
    }

    /** Whether the stream has an open window (PREPARE or CAPTURE) that a close or cancel must end. */
    public boolean windowOpen(CaptureState state) {
        return state != CaptureState.NO_CAPTURE;
    }

    /** Replays finished before a prepare() are waited for only when no window is open yet. */
    public boolean waitsForReplaysAtPrepare(CaptureState state) {
        return state == CaptureState.NO_CAPTURE;
    }

    /**
     * Refuses a capture mode the backend does not declare: RELAXED needs CAPTURE_MODE_RELAXED; GLOBAL and
     * THREAD_LOCAL (the default) are part of the base contract.
     */
    public void checkMode(CaptureMode mode) {
        if (mode == CaptureMode.RELAXED && !capabilities.contains(Capability.CAPTURE_MODE_RELAXED)) {
            throw new UnsupportedCapabilityException(
                    backend, Capability.CAPTURE_MODE_RELAXED, "beginCapture in " + mode + " mode");
        }
    }

    public GraphKind graphKind() {
        return graphKind;
    }

    public Set<Capability> capabilities() {
        return capabilities;
    }

    public String backend() {
        return backend;
    }
}
