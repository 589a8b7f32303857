package dev.graphrt.backend.hip;

import dev.graphrt.spi.BackendGraph;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An instantiated HIP graph ({@code hipGraphExec_t}; uploaded when the runtime has {@code hipGraphUpload})
 * and what it owns: the pinned host copies of the writes it replays. The template {@code hipGraph_t} is gone
 * by the time this exists; its node count and DOT dump were taken before it was destroyed.
 */
final class HipGraph implements BackendGraph {
    private final HipStream owner;
    private final MemorySegment exec;
    private final int nodeCount;
    private final String dot;
    private final List<MemorySegment> hostCopies;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    HipGraph(HipStream owner, MemorySegment exec, int nodeCount, String dot, List<MemorySegment> hostCopies) {
        this.owner = owner;
        this.exec = exec;
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

    HipStream owner() {
        return owner;
    }

    MemorySegment exec() {
        return exec;
    }

    List<MemorySegment> hostCopies() {
        return hostCopies;
    }

    boolean isDestroyed() {
        return destroyed.get();
    }

    /** True exactly once: for the caller that gets to destroy it. */
    boolean markDestroyed() {
        return destroyed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "HipGraph[" + nodeCount + " nodes, exec " + exec + (destroyed.get() ? ", destroyed" : "") + "]";
    }
}
