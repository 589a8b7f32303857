package dev.graphrt.backend.cuda;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.StreamDriver;
import java.lang.foreign.MemorySegment;

/**
 * The CUDA driver's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: each one
 * {@link CudaDriver} call; the graph calls are {@link CudaGraphs}. Streams are {@code CU_STREAM_NON_BLOCKING}
 * (never the legacy stream, so synchronous copies elsewhere do not touch them while they capture); fence
 * events have timing disabled.
 *
 * @param context the backend's context, which {@link #makeCurrent()} binds to the calling thread
 */
record CudaStream(CudaContext context) implements StreamDriver {
    private static final DriverNames NAMES = new DriverNames("cuda", "cu", CudaDriver.ERRORS);

    @Override
    public DriverNames names() {
        return NAMES;
    }

    @Override
    public void makeCurrent() {
        context.makeCurrent();
    }

    @Override
    public MemorySegment createStream() {
        return CudaDriver.streamCreate(CudaNative.CU_STREAM_NON_BLOCKING);
    }

    @Override
    public void destroyStream(MemorySegment stream) {
        CudaDriver.streamDestroy(stream);
    }

    @Override
    public void synchronize(MemorySegment stream) {
        CudaDriver.streamSynchronize(stream);
    }

    @Override
    public int tryQuery(MemorySegment stream) {
        return CudaDriver.tryStreamQuery(stream);
    }

    @Override
    public void launch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream) {
        CudaDriver.launchKernel(function, d.gridX(), d.gridY(), d.gridZ(), d.blockX(), d.blockY(), d.blockZ(), stream,
                params);
    }

    @Override
    public void copyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        CudaDriver.memcpyHtoDAsync(dst, src, bytes, stream);
    }

    @Override
    public void copyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        CudaDriver.memcpyDtoHAsync(dst, src, bytes, stream);
    }

    @Override
    public MemorySegment createEvent() {
        return CudaDriver.eventCreate(CudaNative.CU_EVENT_DISABLE_TIMING);
    }

    @Override
    public void recordEvent(MemorySegment event, MemorySegment stream) {
        CudaDriver.eventRecord(event, stream);
    }

    @Override
    public boolean queryEvent(MemorySegment event) {
        return CudaDriver.eventQuery(event);
    }

    @Override
    public void synchronizeEvent(MemorySegment event) {
        CudaDriver.eventSynchronize(event);
    }

    @Override
    public void destroyEvent(MemorySegment event) {
        CudaDriver.eventDestroy(event);
    }

    @Override
    public GraphCalls graphs() {
        return CudaGraphs.INSTANCE;
    }
}
