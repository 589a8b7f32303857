package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphDiagnosis;
import dev.graphrt.api.GraphInfo;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.HoldCount;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.RecordedLaunches;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A user-facing graph: the backend's sealed graph, what it pins, the buffers it retains (one hold each, taken
 * while recording, so a buffer the user closes stays valid for every replay) and its counters.
 *
 * <p>A graph is itself held: by its user's handle, and by every graph whose recording replayed it (a parent
 * replays the child's work, so it keeps the child's pins and buffers). {@link #close()} ends the handle at once
 * (later replays are refused) and, like a buffer's close, never blocks; the owner releases the graph when the
 * last holder lets go.
 */
final class CoreGraph implements Graph, Retainable {
    private final Owner owner;
    private final RuntimeScope scope;
    private final long id;
    /** What replays run: replaced, under the stream's lock, by an applied update or a rebind. */
    private volatile SealedWindow window;
    /** Which launches pass which slice, for rebinds; rebuilt when it describes another recording. */
    private volatile @Nullable LaunchIndex launchIndex;

    private final GraphKind kind;
    private final AtomicLong replays = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HoldCount holds = new HoldCount();

    CoreGraph(Owner owner, RuntimeScope scope, SealedWindow window, GraphKind kind) {
        this.owner = owner;
        this.scope = scope;
        this.window = window;
        this.id = window.graphId();
        this.kind = kind;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public void replay() {
        owner.replay(this);
    }

    @Override
    public GraphInfo info() {
        SealedWindow now = window;
        return new GraphInfo(
                id(), kind, now.graph().nodeCount(), now.pinnedBytes(), now.captureDuration(), replays.get());
    }

    @Override
    public String toDot() {
        SealedWindow now = window;
        return now.graph().driverDot().orElseGet(() -> LaunchRecorder.toDot(id(), now.nodeLabels()));
    }

    @Override
    public UpdateResult update(CaptureOptions options, Consumer<GpuStream> step) {
        return owner.update(this, options, step);
    }

    @Override
    public int rebind(Buffer from, Buffer to) {
        return owner.rebind(this, from, to);
    }

    /** Makes {@code next} what replays run and returns the window it replaces (the stream's lock is held). */
    SealedWindow swap(SealedWindow next) {
        SealedWindow previous = window;
        window = next;
        return previous;
    }

    /** True once closed by the user, by its stream's close, or by its runtime's close. */
    @Override
    public boolean isClosed() {
        return closed.get() || scope.isClosed();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release();
        }
    }

    /** Marks closed without letting the user's hold go: the closing stream releases the graph itself. */
    void markClosed() {
        closed.set(true);
    }

    /**
     * Whether a live graph replays this one as a child (it holds it besides the user's handle): its recording must
     * then stay as it is, since the parent's copy of it uses the same memory.
     */
    boolean nested() {
        return holds.count() > 1;
    }

    @Override
    public boolean retain() {
        return holds.retain();
    }

    @Override
    public void release() {
        if (holds.release(this)) {
            owner.unused(this);
        }
    }

    /** Nothing of its own: what it pins counts as pinned, and its buffers count through their own holds. */
    @Override
    public long retainedBytes() {
        return 0;
    }

    void countReplay() {
        replays.incrementAndGet();
    }

    BackendGraph backendGraph() {
        return window.graph();
    }

    /** What endCapture sealed: a later capture replaying this graph records it from here. */
    @Override
    public GraphDiagnosis diagnose() {
        return owner.diagnose(this);
    }

    SealedWindow window() {
        return window;
    }

    /** The launch index of {@code recording} (this graph's current one): kept from the last rebind, or built. */
    LaunchIndex launchIndex(RecordedLaunches recording) {
        LaunchIndex kept = launchIndex;
        if (kept != null && kept.describes(recording)) {
            return kept;
        }
        LaunchIndex built = LaunchIndex.of(recording);
        launchIndex = built;
        return built;
    }

    /** Keeps the index a rebind carried over to the graph's new recording. */
    void keepLaunchIndex(LaunchIndex index) {
        launchIndex = index;
    }

    /** The buffers (and child graphs) this graph holds; released after its last replay finished. */
    List<Retainable> retained() {
        return window.retained();
    }

    Owner owner() {
        return owner;
    }

    RuntimeScope scope() {
        return scope;
    }

    @Override
    public String toString() {
        return "graph #" + id + " (" + window.graph().nodeCount() + " nodes, stream #" + owner.id() + ")";
    }

    /**
     * What a graph needs of the stream that sealed it, and nothing more: the graph knows this interface, not the
     * stream. Both calls may come from any thread; {@link #unused} never blocks.
     */
    interface Owner {
        /** The stream's id, for messages. */
        long id();

        /** Enqueues one replay of {@code graph} on the owning stream. */
        void replay(Graph graph);

        /**
         * The graph's last holder let go (its user's handle, or the last graph that recorded it as a child): the
         * owner destroys it, unpins it and releases its buffers behind the work that may still use them. Never
         * blocks: when the stream is busy the release waits for the stream's next flush point.
         */
        void unused(CoreGraph graph);

        /** Re-runs {@code graph}'s recorded launches one at a time and reports the first that fails. */
        GraphDiagnosis diagnose(CoreGraph graph);

        /** Re-records {@code step} into {@code graph} in place (see {@code Graph.update}). */
        UpdateResult update(CoreGraph graph, CaptureOptions options, Consumer<GpuStream> step);

        /** Points {@code graph}'s launches that pass {@code from} at {@code to} (see {@code Graph.rebind}). */
        int rebind(CoreGraph graph, Buffer from, Buffer to);
    }
}
