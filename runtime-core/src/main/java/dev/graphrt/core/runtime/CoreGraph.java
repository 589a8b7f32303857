package dev.graphrt.core.runtime;

import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphInfo;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.GraphKind;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A user-facing graph: the backend's sealed graph, what it pins, the buffers it retains (one hold each, taken
 * while recording, so a buffer the user closes stays valid for every replay) and its counters.
 */
final class CoreGraph implements Graph {
    private final CoreStream stream;
    private final SealedWindow window;
    private final GraphKind kind;
    private final AtomicLong replays = new AtomicLong();
    private volatile boolean closed;

    CoreGraph(CoreStream stream, SealedWindow window, GraphKind kind) {
        this.stream = stream;
        this.window = window;
        this.kind = kind;
    }

    @Override
    public long id() {
        return window.graphId();
    }

    @Override
    public void replay() {
        stream.replay(this);
    }

    @Override
    public GraphInfo info() {
        return new GraphInfo(id(), kind, window.graph().nodeCount(), window.pinnedBytes(), window.captureDuration(),
                replays.get());
    }

    @Override
    public String toDot() {
        return window.graph().driverDot().orElseGet(() -> LaunchRecorder.toDot(id(), window.nodeLabels()));
    }

    /** True once closed by the user, by its stream's close, or by its runtime's close. */
    @Override
    public boolean isClosed() {
        return closed || stream.runtime().isClosed();
    }

    @Override
    public void close() {
        stream.closeGraph(this);
    }

    /** Marks closed; returns false if it already was. Called by the stream under its lock. */
    boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    boolean closedByUser() {
        return closed;
    }

    void countReplay() {
        replays.incrementAndGet();
    }

    BackendGraph backendGraph() {
        return window.graph();
    }

    /** The buffers this graph holds; released after its last replay finished. */
    List<Retainable> retained() {
        return window.retained();
    }

    CoreStream stream() {
        return stream;
    }

    @Override
    public String toString() {
        return "graph #" + id() + " (" + window.graph().nodeCount() + " nodes, stream #" + stream.id() + ")";
    }
}
