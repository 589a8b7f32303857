package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaDriver.CALLS;
import static dev.graphrt.backend.cuda.CudaHandles.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The CUDA driver's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: each a checked call of
 * one raw {@link CudaHandles} handle. Graphs are instantiated with flags 0 and uploaded ({@code cuGraphUpload});
 * memory allocation and free nodes make a graph unrelaunchable; the capture id comes from
 * {@code cuStreamGetCaptureInfo}. Stateless: the caller made the backend's context current.
 */
enum CudaGraphs implements GraphCalls {
    INSTANCE;

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    @Override
    public void beginCapture(MemorySegment stream, int mode) {
        int rc = DriverCalls.raw("cuStreamBeginCapture_v2", () -> (int) cuStreamBeginCapture.invokeExact(stream, mode));
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw CudaDriver.ERRORS.toBeginCaptureException("cuStreamBeginCapture_v2", rc);
        }
    }

    @Override
    public int tryEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return DriverCalls.raw("cuStreamEndCapture", () -> (int) cuStreamEndCapture.invokeExact(stream, graphOut));
    }

    /** Whether the stream's {@code CUstreamCaptureStatus} is ACTIVE (1) or INVALIDATED (2), not NONE (0). */
    @Override
    public boolean isCapturing(MemorySegment stream) {
        return CALLS.intOut("cuStreamIsCapturing", out -> (int) cuStreamIsCapturing.invokeExact(stream, out))
                != DriverConstants.CAPTURE_STATUS_NONE;
    }

    /** The driver's id of the capture in progress (for logs), from the newest {@code cuStreamGetCaptureInfo}. */
    @Override
    public OptionalLong captureId(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment id = arena.allocate(JAVA_LONG);
            MemorySegment none = MemorySegment.NULL;
            int rc;
            if (cuStreamGetCaptureInfoV3 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v3", () -> (int) cuStreamGetCaptureInfoV3.invokeExact(
                        stream, status, id, none, none, none, none));
            } else if (cuStreamGetCaptureInfoV2 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v2", () -> (int) cuStreamGetCaptureInfoV2.invokeExact(
                        stream, status, id, none, none, none));
            } else {
                return OptionalLong.of(-1);
            }
            return OptionalLong.of(rc == HardwareGraphErrors.SUCCESS
                    && status.get(JAVA_INT, 0) != DriverConstants.CAPTURE_STATUS_NONE ? id.get(JAVA_LONG, 0) : -1);
        }
    }

    @Override
    public int[] nodeTypes(MemorySegment template) {
        return CALLS.graphNodeTypes(template, "cuGraphGetNodes", cuGraphGetNodes, "cuGraphNodeGetType",
                cuGraphNodeGetType);
    }

    @Override
    public void checkRelaunchable(int[] types) {
        long allocations = Arrays.stream(types).filter(t -> t == DriverConstants.GRAPH_NODE_TYPE_MEM_ALLOC).count();
        long frees = Arrays.stream(types).filter(t -> t == DriverConstants.GRAPH_NODE_TYPE_MEM_FREE).count();
        if (allocations + frees > 0) {
            throw new GraphNotRelaunchableException("the captured graph holds " + allocations
                    + " memory allocation node(s) and " + frees + " memory free node(s) (stream-ordered "
                    + "cuMemAllocAsync/cuMemFreeAsync inside the capture); such a graph cannot be relaunched "
                    + "safely: allocate before beginCapture() (during the warm-up) instead");
        }
    }

    /** {@code cuGraphInstantiateWithFlags(graph, 0)}. */
    @Override
    public MemorySegment instantiate(MemorySegment template) {
        return CALLS.addressOut("cuGraphInstantiateWithFlags",
                out -> (int) cuGraphInstantiateWithFlags.invokeExact(out, template, 0L));
    }

    @Override
    public void upload(MemorySegment exec, MemorySegment stream) {
        CALLS.run("cuGraphUpload", () -> (int) cuGraphUpload.invokeExact(exec, stream));
    }

    @Override
    public void printDot(MemorySegment template, String path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            CALLS.run("cuGraphDebugDotPrint", () -> (int) cuGraphDebugDotPrint.invokeExact(template, cPath,
                    DriverConstants.GRAPH_DEBUG_DOT_FLAGS_DEFAULT));
        }
    }

    @Override
    public void destroyTemplate(MemorySegment template) {
        CALLS.run("cuGraphDestroy", () -> (int) cuGraphDestroy.invokeExact(template));
    }

    @Override
    public void launchGraph(MemorySegment exec, MemorySegment stream) {
        try { // hot: no lambda
            CudaDriver.check("cuGraphLaunch", (int) cuGraphLaunch.invokeExact(exec, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuGraphLaunch", t);
        }
    }

    @Override
    public void destroyExec(MemorySegment exec) {
        CALLS.run("cuGraphExecDestroy", () -> (int) cuGraphExecDestroy.invokeExact(exec));
    }
}
