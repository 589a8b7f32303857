package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaDriver.CALLS;
import static dev.graphrt.backend.cuda.CudaHandles.*;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.StreamDriver;
import java.lang.foreign.MemorySegment;

/**
 * The CUDA driver's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: each a checked call of
 * one raw {@link CudaHandles} handle; the graph calls are {@link CudaGraphs}. Streams are
 * {@code CU_STREAM_NON_BLOCKING} (never the legacy stream, so synchronous copies elsewhere do not touch them
 * while they capture); fence events have timing disabled.
 *
 * <p>Hot paths (launch, async copy, event record and query) are plain {@code invokeExact} calls of
 * {@code static final} handles, which the JIT inlines and which allocate nothing; the others go through
 * {@link DriverCalls}.
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
        return CALLS.addressOut("cuStreamCreate",
                out -> (int) cuStreamCreate.invokeExact(out, DriverConstants.STREAM_NON_BLOCKING));
    }

    @Override
    public void destroyStream(MemorySegment stream) {
        CALLS.run("cuStreamDestroy_v2", () -> (int) cuStreamDestroy.invokeExact(stream));
    }

    @Override
    public void synchronize(MemorySegment stream) {
        CALLS.run("cuStreamSynchronize", () -> (int) cuStreamSynchronize.invokeExact(stream));
    }

    @Override
    public int tryQuery(MemorySegment stream) {
        return DriverCalls.raw("cuStreamQuery", () -> (int) cuStreamQuery.invokeExact(stream));
    }

    @Override
    public void launch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream) {
        try { // hot: no lambda
            CudaDriver.check("cuLaunchKernel", (int) cuLaunchKernel.invokeExact(function, d.gridX(), d.gridY(),
                    d.gridZ(), d.blockX(), d.blockY(), d.blockZ(), 0, stream, params, MemorySegment.NULL));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuLaunchKernel", t);
        }
    }

    @Override
    public void copyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        try { // hot: no lambda
            CudaDriver.check("cuMemcpyHtoDAsync_v2", (int) cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuMemcpyHtoDAsync_v2", t);
        }
    }

    @Override
    public void copyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        CALLS.run("cuMemcpyDtoHAsync_v2", () -> (int) cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream));
    }

    @Override
    public MemorySegment createEvent() {
        return CALLS.addressOut("cuEventCreate",
                out -> (int) cuEventCreate.invokeExact(out, DriverConstants.EVENT_DISABLE_TIMING));
    }

    @Override
    public void recordEvent(MemorySegment event, MemorySegment stream) {
        try { // hot: no lambda
            CudaDriver.check("cuEventRecord", (int) cuEventRecord.invokeExact(event, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuEventRecord", t);
        }
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    @Override
    public boolean queryEvent(MemorySegment event) {
        int rc;
        try { // hot: no lambda
            rc = (int) cuEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuEventQuery", t);
        }
        return CALLS.ready("cuEventQuery", rc);
    }

    @Override
    public void synchronizeEvent(MemorySegment event) {
        CALLS.run("cuEventSynchronize", () -> (int) cuEventSynchronize.invokeExact(event));
    }

    @Override
    public void destroyEvent(MemorySegment event) {
        CALLS.run("cuEventDestroy_v2", () -> (int) cuEventDestroy.invokeExact(event));
    }

    @Override
    public GraphCalls graphs() {
        return CudaGraphs.INSTANCE;
    }
}
