package dev.graphrt.backend.wgpu;

import dev.graphrt.spi.BackendGraph;
import java.lang.foreign.MemorySegment;

/**
 * A recording resolved once, so replay does no lookups: per launch the pipeline and bind group to set (or
 * {@code null} where they equal the previous launch's) and the workgroup counts. The graph holds its own
 * reference on every bind group it names, released by {@link #release()}.
 */
final class SealedGraph implements BackendGraph {
    final WgpuStream stream;
    final MemorySegment[] pipelines;
    final MemorySegment[] bindGroups;
    final int[] workgroups;
    private final MemorySegment[] ownedBindGroups;
    private boolean released;

    SealedGraph(WgpuStream stream, MemorySegment[] pipelines, MemorySegment[] bindGroups, int[] workgroups,
                MemorySegment[] ownedBindGroups) {
        this.stream = stream;
        this.pipelines = pipelines;
        this.bindGroups = bindGroups;
        this.workgroups = workgroups;
        this.ownedBindGroups = ownedBindGroups;
    }

    @Override
    public int nodeCount() {
        return pipelines.length;
    }

    boolean isReleased() {
        return released;
    }

    /** Drops the graph's bind group references. Caller holds the device lock. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        for (MemorySegment group : ownedBindGroups) {
            Wgpu.bindGroupRelease(group);
        }
    }

    @Override
    public String toString() {
        return "SealedGraph[" + nodeCount() + " launches, " + ownedBindGroups.length + " bind groups]";
    }
}
