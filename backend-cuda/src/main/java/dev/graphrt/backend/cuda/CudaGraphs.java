package dev.graphrt.backend.cuda;

import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.driver.GraphCalls;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The CUDA driver's graph calls, for the shared {@link dev.graphrt.driver.GraphCapture}: each one
 * {@link CudaDriver} call. Graphs are instantiated with flags 0 and uploaded ({@code cuGraphUpload}); memory
 * allocation and free nodes make a graph unrelaunchable; the capture id comes from
 * {@code cuStreamGetCaptureInfo}. Stateless: the caller made the backend's context current.
 */
enum CudaGraphs implements GraphCalls {
    INSTANCE;

    @Override
    public void beginCapture(MemorySegment stream, int mode) {
        CudaDriver.streamBeginCapture(stream, mode);
    }

    @Override
    public int tryEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return CudaDriver.tryStreamEndCapture(stream, graphOut);
    }

    @Override
    public boolean isCapturing(MemorySegment stream) {
        return CudaDriver.streamCaptureStatus(stream) != CudaNative.CU_STREAM_CAPTURE_STATUS_NONE;
    }

    @Override
    public OptionalLong captureId(MemorySegment stream) {
        return OptionalLong.of(CudaDriver.captureId(stream));
    }

    @Override
    public int[] nodeTypes(MemorySegment template) {
        return CudaDriver.graphNodeTypes(template);
    }

    @Override
    public void checkRelaunchable(int[] types) {
        long allocations = Arrays.stream(types).filter(t -> t == CudaNative.CU_GRAPH_NODE_TYPE_MEM_ALLOC).count();
        long frees = Arrays.stream(types).filter(t -> t == CudaNative.CU_GRAPH_NODE_TYPE_MEM_FREE).count();
        if (allocations + frees > 0) {
            throw new GraphNotRelaunchableException("the captured graph holds " + allocations
                    + " memory allocation node(s) and " + frees + " memory free node(s) (stream-ordered "
                    + "cuMemAllocAsync/cuMemFreeAsync inside the capture); such a graph cannot be relaunched "
                    + "safely: allocate before beginCapture() (during the warm-up) instead");
        }
    }

    @Override
    public MemorySegment instantiate(MemorySegment template) {
        return CudaDriver.graphInstantiate(template);
    }

    @Override
    public void upload(MemorySegment exec, MemorySegment stream) {
        CudaDriver.graphUpload(exec, stream);
    }

    @Override
    public void printDot(MemorySegment template, String path) {
        CudaDriver.graphDebugDotPrint(template, path, CudaNative.CU_GRAPH_DEBUG_DOT_FLAGS_DEFAULT);
    }

    @Override
    public void destroyTemplate(MemorySegment template) {
        CudaDriver.graphDestroy(template);
    }

    @Override
    public void launchGraph(MemorySegment exec, MemorySegment stream) {
        CudaDriver.graphLaunch(exec, stream);
    }

    @Override
    public void destroyExec(MemorySegment exec) {
        CudaDriver.graphExecDestroy(exec);
    }
}
