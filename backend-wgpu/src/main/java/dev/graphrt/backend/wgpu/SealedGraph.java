package dev.graphrt.backend.wgpu;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A recording resolved once, at seal time, into exactly the calls its replay makes, so a replay only encodes and
 * submits: no lookups, no validation, no allocation on the Java side.
 *
 * <p><b>What sealing builds.</b> Per launch the workgroup counts, and the pipeline and bind group to set, or
 * {@code null} where they equal the previous launch's in the same chunk (a state change repeated is dropped). The
 * recording is cut into chunks ({@link ReplayChunks}); each chunk is one command encoder, one compute pass and
 * one submission, and sets its state afresh at its first launch because a new pass starts with none. The graph
 * holds its own reference on every bind group it names, so the bind group cache may evict them meanwhile;
 * {@link #release()} drops those references.
 *
 * <p><b>Why chunks.</b> A replay is submitted chunk by chunk: the device starts on the first chunk while the host
 * encodes the next. Ordering is kept: the chunks go to the device's one queue in recording order, after the
 * stream's earlier work and before anything written or launched later.
 *
 * <p>Every method runs under the device lock.
 */
final class SealedGraph implements BackendGraph {
    private final WgpuStream stream;
    private final WgpuDevice device;
    private final MemorySegment[] pipelines;
    private final MemorySegment[] bindGroups;
    private final int[] workgroups;
    private final int[] chunkEnds;
    private final MemorySegment[] ownedBindGroups;
    private boolean released;

    private SealedGraph(
            WgpuStream stream,
            WgpuDevice device,
            MemorySegment[] pipelines,
            MemorySegment[] bindGroups,
            int[] workgroups,
            int[] chunkEnds,
            MemorySegment[] ownedBindGroups) {
        this.stream = stream;
        this.device = device;
        this.pipelines = pipelines;
        this.bindGroups = bindGroups;
        this.workgroups = workgroups;
        this.chunkEnds = chunkEnds;
        this.ownedBindGroups = ownedBindGroups;
    }

    /**
     * Resolves {@code recording} for {@code stream}: checks every kernel and grid, makes (or finds) every bind
     * group inside a validation error scope, and fails with the first error, holding nothing, if any launch is
     * invalid. Caller holds the device lock.
     */
    static SealedGraph seal(WgpuStream stream, WgpuDevice device, RecordedLaunches recording, ReplayChunks chunks) {
        List<RecordedLaunch> launches = recording.launches();
        int n = launches.size();
        int[] ends = chunks.ends(n);
        MemorySegment[] pipelines = new MemorySegment[n];
        MemorySegment[] groups = new MemorySegment[n];
        int[] workgroups = new int[3 * n];
        List<MemorySegment> owned = new ArrayList<>();
        device.pushErrorScopes(WebGpuHeader.ERROR_FILTER_VALIDATION);
        RuntimeException failure = null;
        try {
            for (int chunk = 0, i = 0; chunk < ends.length; chunk++) {
                long previousPipeline = 0; // a new pass starts with no state
                long previousGroup = 0;
                for (; i < ends[chunk]; i++) {
                    RecordedLaunch launch = launches.get(i);
                    WgpuKernel k = WgpuKernel.of(launch.kernel(), device);
                    LaunchDims d = launch.dims();
                    device.checkGrid(d);
                    MemorySegment group = device.bindGroups.get(k, launch.bindings());
                    if (group.address() != previousGroup) {
                        Wgpu.bindGroupAddRef(group); // one reference per place the replay sets it
                        owned.add(group);
                        groups[i] = group;
                        previousGroup = group.address();
                    }
                    if (k.pipeline().address() != previousPipeline) {
                        pipelines[i] = k.pipeline();
                        previousPipeline = k.pipeline().address();
                    }
                    workgroups[3 * i] = d.gridX();
                    workgroups[3 * i + 1] = d.gridY();
                    workgroups[3 * i + 2] = d.gridZ();
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        List<WgpuDevice.ScopedError> scoped = device.popErrorScopes(1);
        if (failure == null && !scoped.isEmpty()) {
            failure = scoped.getFirst().toException("wgpuDeviceCreateBindGroup");
        }
        if (failure != null) {
            owned.forEach(Wgpu::bindGroupRelease);
            throw failure;
        }
        return new SealedGraph(
                stream, device, pipelines, groups, workgroups, ends, owned.toArray(MemorySegment[]::new));
    }

    @Override
    public int nodeCount() {
        return workgroups.length / 3;
    }

    /** The number of submissions one replay makes. */
    int chunkCount() {
        return chunkEnds.length;
    }

    /** References this graph holds on bind groups (one per place a replay sets one). */
    int bindGroupCount() {
        return ownedBindGroups.length;
    }

    WgpuStream stream() {
        return stream;
    }

    boolean isReleased() {
        return released;
    }

    /**
     * Encodes and submits the whole recording, chunk by chunk. Caller holds the device lock and has submitted the
     * stream's own open work first.
     */
    void replay() {
        if (released) {
            throw new IllegalArgumentException("graph: already destroyed");
        }
        MemorySegment[] p = pipelines;
        MemorySegment[] g = bindGroups;
        int[] wg = workgroups;
        int i = 0;
        for (int end : chunkEnds) {
            MemorySegment encoder = Wgpu.deviceCreateCommandEncoder(device.device);
            MemorySegment pass = Wgpu.commandEncoderBeginComputePass(encoder);
            for (; i < end; i++) {
                MemorySegment pipeline = p[i];
                if (pipeline != null) {
                    Wgpu.computePassSetPipeline(pass, pipeline);
                }
                MemorySegment group = g[i];
                if (group != null) {
                    Wgpu.computePassSetBindGroup(pass, 0, group);
                }
                int w = 3 * i;
                Wgpu.computePassDispatch(pass, wg[w], wg[w + 1], wg[w + 2]);
            }
            Wgpu.computePassEnd(pass);
            Wgpu.computePassRelease(pass);
            device.submit(encoder);
        }
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
        return "SealedGraph[" + nodeCount() + " launches in " + chunkEnds.length + " submissions, "
                + ownedBindGroups.length + " bind groups]";
    }
}
