package dev.graphrt.driver;

import dev.graphrt.spi.BackendGraph;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * An instantiated hardware graph ({@code CUgraphExec}, {@code hipGraphExec_t}) and what it owns: the template it
 * was instantiated from (whose nodes name the executable graph's nodes, for a rebind's
 * {@code GraphExecKernelNodeSetParams}), the template of the recording it runs now (the same one, or an update's;
 * its DOT dump is made on request, not at capture) and the pinned host copies of the writes it replays.
 *
 * <p>An update ({@link #succeededBy}) hands the executable graph and its first template on to a successor; this
 * graph is then a shell that owns only what its own recording had (its host copies, an update's template), which
 * {@link GraphCapture#destroy} frees after the replays that used them.
 *
 * <p>Why shared: a CUDA and a HIP graph hold exactly the same things, and the capture orchestration that makes,
 * replays, updates and destroys them ({@link GraphCapture}) is one piece of code for both backends. Only
 * {@link GraphCapture} creates these; {@link #owner()} is that capture, so a graph cannot be replayed on a stream
 * that did not capture it.
 */
public final class DriverGraph implements BackendGraph {
    private final GraphCapture owner;
    private final String kind;
    private final MemorySegment exec;
    private final MemorySegment template;
    private final MemorySegment latest;
    private final int nodeCount;
    private final List<MemorySegment> hostCopies;
    private final AtomicBoolean destroyed = new AtomicBoolean();
    private volatile boolean handedOn;
    /** A rebind patched the executable graph only: the templates no longer say what it runs. */
    private volatile boolean rebound;
    /** The kernel nodes of {@link #template}, in launch order; found on the first rebind. Guarded by this. */
    private MemorySegment[] kernelNodes;

    DriverGraph(
            GraphCapture owner,
            String kind,
            MemorySegment exec,
            MemorySegment template,
            MemorySegment latest,
            int nodeCount,
            List<MemorySegment> hostCopies,
            MemorySegment[] kernelNodes) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.exec = Objects.requireNonNull(exec, "exec");
        this.template = Objects.requireNonNull(template, "template");
        this.latest = Objects.requireNonNull(latest, "latest");
        this.nodeCount = nodeCount;
        this.hostCopies = List.copyOf(hostCopies);
        this.kernelNodes = kernelNodes;
    }

    @Override
    public int nodeCount() {
        return nodeCount;
    }

    /** The driver's DOT dump of the recording it runs, made now; empty when the driver has none or it is gone. */
    @Override
    public synchronized Optional<String> driverDot() {
        if (destroyed.get() || rebound || !owner.printsDot()) {
            return Optional.empty();
        }
        return Optional.ofNullable(owner.dot(latest));
    }

    /** What captured this graph. */
    public GraphCapture owner() {
        return owner;
    }

    /** The executable graph handle. */
    public MemorySegment exec() {
        return exec;
    }

    /** The graph-owned pinned blocks its recorded writes read. */
    public List<MemorySegment> hostCopies() {
        return hostCopies;
    }

    /** A rebind patched the executable graph: its templates keep the old arguments (no DOT, no nesting). */
    void markRebound() {
        rebound = true;
    }

    /** Whether a rebind patched it (see {@link #markRebound()}). */
    public boolean isRebound() {
        return rebound;
    }

    /** Whether an update handed its executable graph on: it is only a shell of what its recording owned. */
    public boolean isHandedOn() {
        return handedOn;
    }

    /**
     * The graph that runs {@code updated} (a template the driver applied to {@link #exec()}) with its host copies:
     * it takes over the executable graph and the first template; this one becomes a shell.
     */
    DriverGraph succeededBy(MemorySegment updated, List<MemorySegment> copies) {
        MemorySegment[] nodes;
        synchronized (this) {
            handedOn = true;
            nodes = kernelNodes;
        }
        return new DriverGraph(owner, kind, exec, template, updated, nodeCount, copies, nodes);
    }

    /** The template whose nodes name {@link #exec()}'s nodes. */
    MemorySegment template() {
        return template;
    }

    /** The template of the recording it runs (DOT). */
    MemorySegment latest() {
        return latest;
    }

    /** The kernel nodes in launch order, found once with {@code find}. */
    synchronized MemorySegment[] kernelNodes(Supplier<MemorySegment[]> find) {
        if (kernelNodes == null) {
            kernelNodes = find.get();
        }
        return kernelNodes;
    }

    /** Whether {@link #markDestroyed()} has run. */
    public boolean isDestroyed() {
        return destroyed.get();
    }

    /** True exactly once: for the caller that gets to destroy it. */
    public boolean markDestroyed() {
        return destroyed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return kind + "[" + nodeCount + " nodes, exec " + exec + (handedOn ? ", handed on" : "")
                + (destroyed.get() ? ", destroyed" : "") + "]";
    }
}
