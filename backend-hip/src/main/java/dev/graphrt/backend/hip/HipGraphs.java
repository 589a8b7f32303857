package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.*;
import static dev.graphrt.backend.hip.HipRuntime.CALLS;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The HIP runtime's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: each a checked call of
 * one raw {@link HipHandles} handle. Graphs are instantiated with flags 0 and uploaded with {@code hipGraphUpload}
 * only where the runtime exports it (ROCm 5.2 does not: the first replay then uploads the graph); the driver DOT
 * comes from {@code hipGraphDebugDotPrint} only where the runtime exports it (ROCm 5.5+); memory nodes are
 * recognised in the runtime's own numbering ({@link HipGraphNodeTypes}). The caller made the device current.
 *
 * @param nodeTypes which node types the loaded runtime's graphs must not hold
 */
record HipGraphs(HipGraphNodeTypes nodeTypes) implements GraphCalls {
    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    @Override
    public void beginCapture(MemorySegment stream, int mode) {
        int rc = DriverCalls.raw("hipStreamBeginCapture", () -> (int) hipStreamBeginCapture.invokeExact(stream, mode));
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw HipRuntime.ERRORS.toBeginCaptureException("hipStreamBeginCapture", rc);
        }
    }

    @Override
    public int tryEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return DriverCalls.raw("hipStreamEndCapture", () -> (int) hipStreamEndCapture.invokeExact(stream, graphOut));
    }

    /** Whether the stream's {@code hipStreamCaptureStatus} is ACTIVE (1) or INVALIDATED (2), not NONE (0). */
    @Override
    public boolean isCapturing(MemorySegment stream) {
        return CALLS.intOut("hipStreamIsCapturing", out -> (int) hipStreamIsCapturing.invokeExact(stream, out))
                != DriverConstants.CAPTURE_STATUS_NONE;
    }

    @Override
    public int[] nodeTypes(MemorySegment template) {
        return CALLS.graphNodeTypes(template, "hipGraphGetNodes", hipGraphGetNodes, "hipGraphNodeGetType",
                hipGraphNodeGetType);
    }

    @Override
    public void checkRelaunchable(int[] types) {
        nodeTypes.check(types);
    }

    @Override
    public MemorySegment instantiate(MemorySegment template) {
        return CALLS.addressOut("hipGraphInstantiateWithFlags", out -> (int) hipGraphInstantiateWithFlags.invokeExact(
                out, template, DriverConstants.GRAPH_INSTANTIATE_FLAGS));
    }

    /** {@code hipGraphUpload} where the runtime has it; ROCm 5.2 lacks it, and the first replay then uploads. */
    @Override
    public void upload(MemorySegment exec, MemorySegment stream) {
        if (HipRuntime.hasGraphUpload()) {
            CALLS.run("hipGraphUpload", () -> (int) hipGraphUpload.invokeExact(exec, stream));
        }
    }

    @Override
    public boolean printsDot() {
        return HipRuntime.hasGraphDebugDotPrint();
    }

    /** Writes the DOT dump; only called when {@link #printsDot()}. */
    @Override
    public void printDot(MemorySegment template, String path) {
        if (!printsDot()) {
            throw new IllegalStateException(HipLibrary.origin() + " has no hipGraphDebugDotPrint");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            CALLS.run("hipGraphDebugDotPrint", () -> (int) hipGraphDebugDotPrint.invokeExact(template, cPath,
                    DriverConstants.GRAPH_DEBUG_DOT_FLAGS_DEFAULT));
        }
    }

    @Override
    public void destroyTemplate(MemorySegment template) {
        CALLS.run("hipGraphDestroy", () -> (int) hipGraphDestroy.invokeExact(template));
    }

    @Override
    public void launchGraph(MemorySegment exec, MemorySegment stream) {
        try { // hot: no lambda
            HipRuntime.check("hipGraphLaunch", (int) hipGraphLaunch.invokeExact(exec, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipGraphLaunch", t);
        }
    }

    @Override
    public void destroyExec(MemorySegment exec) {
        CALLS.run("hipGraphExecDestroy", () -> (int) hipGraphExecDestroy.invokeExact(exec));
    }
}
