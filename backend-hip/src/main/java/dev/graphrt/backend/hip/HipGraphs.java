package dev.graphrt.backend.hip;

import dev.graphrt.driver.GraphCalls;
import java.lang.foreign.MemorySegment;

/**
 * The HIP runtime's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: each one
 * {@link HipRuntime} call. Graphs are instantiated with flags 0 and uploaded with {@code hipGraphUpload} only
 * where the runtime exports it (ROCm 5.2 does not: the first replay then uploads the graph); the driver DOT comes
 * from {@code hipGraphDebugDotPrint} only where the runtime exports it (ROCm 5.5+); memory nodes are recognised
 * in the runtime's own numbering ({@link HipGraphNodeTypes}). The caller made the device current.
 *
 * @param nodeTypes which node types the loaded runtime's graphs must not hold
 */
record HipGraphs(HipGraphNodeTypes nodeTypes) implements GraphCalls {
    @Override
    public void beginCapture(MemorySegment stream, int mode) {
        HipRuntime.streamBeginCapture(stream, mode);
    }

    @Override
    public int tryEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return HipRuntime.tryStreamEndCapture(stream, graphOut);
    }

    @Override
    public boolean isCapturing(MemorySegment stream) {
        return HipRuntime.streamCaptureStatus(stream) != HipNative.HIP_STREAM_CAPTURE_STATUS_NONE;
    }

    @Override
    public int[] nodeTypes(MemorySegment template) {
        return HipRuntime.graphNodeTypes(template);
    }

    @Override
    public void checkRelaunchable(int[] types) {
        nodeTypes.check(types);
    }

    @Override
    public MemorySegment instantiate(MemorySegment template) {
        return HipRuntime.graphInstantiate(template);
    }

    @Override
    public void upload(MemorySegment exec, MemorySegment stream) {
        if (HipRuntime.hasGraphUpload()) { // ROCm 5.2 lacks it: the first replay then uploads the graph
            HipRuntime.graphUpload(exec, stream);
        }
    }

    @Override
    public boolean printsDot() {
        return HipRuntime.hasGraphDebugDotPrint();
    }

    @Override
    public void printDot(MemorySegment template, String path) {
        HipRuntime.graphDebugDotPrint(template, path, HipNative.HIP_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
    }

    @Override
    public void destroyTemplate(MemorySegment template) {
        HipRuntime.graphDestroy(template);
    }

    @Override
    public void launchGraph(MemorySegment exec, MemorySegment stream) {
        HipRuntime.graphLaunch(exec, stream);
    }

    @Override
    public void destroyExec(MemorySegment exec) {
        HipRuntime.graphExecDestroy(exec);
    }
}
