package dev.graphrt.driver;

import dev.graphrt.spi.BackendGraph;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An instantiated hardware graph ({@code CUgraphExec}, {@code hipGraphExec_t}) and what it owns: the pinned
 * host copies of the writes it replays. The template graph is gone by the time this exists; its node count
 * and DOT dump were taken before it was destroyed.
 *
 * <p>Why shared: a CUDA and a HIP graph hold exactly the same things, and the capture orchestration that
 * makes, replays and destroys them ({@link GraphCapture}) is one piece of code for both backends. Only
 * {@link GraphCapture} creates these; {@link #owner()} is that capture, so a graph cannot be replayed on a
 * stream that did not capture it.
 */
public final class DriverGraph implements BackendGraph {
    private final Object owner;
    private final String kind;
    private final MemorySegment exec;
    private final int nodeCount;
    private final String dot;
    private final List<MemorySegment> hostCopies;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    /**
     * @param owner      what captured it (identity only)
     * @param kind       the name in {@link #toString()}, e.g. {@code CudaGraph}
     * @param exec       the executable graph handle
     * @param nodeCount  nodes of the captured template
     * @param dot        the driver's DOT dump of the template, or null
     * @param hostCopies the graph-owned pinned blocks its memcpy nodes read
     */
    DriverGraph(Object owner, String kind, MemorySegment exec, int nodeCount, String dot,
            List<MemorySegment> hostCopies) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.exec = Objects.requireNonNull(exec, "exec");
        this.nodeCount = nodeCount;
        this.dot = dot;
        this.hostCopies = List.copyOf(hostCopies);
    }

    @Override
    public int nodeCount() {
        return nodeCount;
    }

    @Override
    public Optional<String> driverDot() {
        return Optional.ofNullable(dot);
    }

    /** What captured this graph (identity only). */
    public Object owner() {
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
        return kind + "[" + nodeCount + " nodes, exec " + exec + (destroyed.get() ? ", destroyed" : "") + "]";
    }
}
