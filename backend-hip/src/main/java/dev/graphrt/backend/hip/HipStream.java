package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.*;
import static dev.graphrt.backend.hip.HipRuntime.CALLS;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverConstants;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.StreamDriver;
import java.lang.foreign.MemorySegment;

/**
 * The HIP runtime's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: each a checked call of
 * one raw {@link HipHandles} handle; the graph calls are {@link HipGraphs}. Streams are
 * {@code hipStreamNonBlocking} (never the null stream); fence events have timing disabled.
 *
 * <p>Where it differs from cuda: the device, not a context, is made current ({@code hipSetDevice}); device
 * pointers are {@code void*}, passed as {@link MemorySegment#ofAddress} (which the JIT does not allocate); a
 * launch cannot check its parameter count (HIP cannot tell it); and pinned staging memory is freed only when no
 * capture of the backend runs, also at close, because ROCm's {@code hipHostFree} synchronises the whole device
 * and would invalidate another stream's capture. Hot paths are plain {@code invokeExact} calls.
 *
 * @param device the backend's device, which {@link #makeCurrent()} makes current on the calling thread
 * @param graphs the graph calls in this runtime's numbering
 */
record HipStream(HipDevice device, HipGraphs graphs) implements StreamDriver {
    private static final DriverNames NAMES = new DriverNames("hip", "hip", HipRuntime.ERRORS);

    @Override
    public DriverNames names() {
        return NAMES;
    }

    @Override
    public void makeCurrent() {
        device.makeCurrent();
    }

    @Override
    public boolean hostFreeSynchronizes() {
        return true;
    }

    @Override
    public MemorySegment createStream() {
        return CALLS.addressOut("hipStreamCreateWithFlags",
                out -> (int) hipStreamCreateWithFlags.invokeExact(out, DriverConstants.STREAM_NON_BLOCKING));
    }

    @Override
    public void destroyStream(MemorySegment stream) {
        CALLS.run("hipStreamDestroy", () -> (int) hipStreamDestroy.invokeExact(stream));
    }

    @Override
    public void synchronize(MemorySegment stream) {
        CALLS.run("hipStreamSynchronize", () -> (int) hipStreamSynchronize.invokeExact(stream));
    }

    @Override
    public int tryQuery(MemorySegment stream) {
        return DriverCalls.raw("hipStreamQuery", () -> (int) hipStreamQuery.invokeExact(stream));
    }

    @Override
    public void launch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream) {
        try { // hot: no lambda
            HipRuntime.check("hipModuleLaunchKernel", (int) hipModuleLaunchKernel.invokeExact(function, d.gridX(),
                    d.gridY(), d.gridZ(), d.blockX(), d.blockY(), d.blockZ(), 0, stream, params, MemorySegment.NULL));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipModuleLaunchKernel", t);
        }
    }

    @Override
    public void copyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        MemorySegment device = MemorySegment.ofAddress(dst);
        try { // hot: no lambda
            HipRuntime.check("hipMemcpyHtoDAsync", (int) hipMemcpyHtoDAsync.invokeExact(device, src, bytes, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipMemcpyHtoDAsync", t);
        }
    }

    @Override
    public void copyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        CALLS.run("hipMemcpyDtoHAsync",
                () -> (int) hipMemcpyDtoHAsync.invokeExact(dst, MemorySegment.ofAddress(src), bytes, stream));
    }

    @Override
    public MemorySegment createEvent() {
        return CALLS.addressOut("hipEventCreateWithFlags",
                out -> (int) hipEventCreateWithFlags.invokeExact(out, DriverConstants.EVENT_DISABLE_TIMING));
    }

    @Override
    public void recordEvent(MemorySegment event, MemorySegment stream) {
        try { // hot: no lambda
            HipRuntime.check("hipEventRecord", (int) hipEventRecord.invokeExact(event, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipEventRecord", t);
        }
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    @Override
    public boolean queryEvent(MemorySegment event) {
        int rc;
        try { // hot: no lambda
            rc = (int) hipEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipEventQuery", t);
        }
        return CALLS.ready("hipEventQuery", rc);
    }

    @Override
    public void synchronizeEvent(MemorySegment event) {
        CALLS.run("hipEventSynchronize", () -> (int) hipEventSynchronize.invokeExact(event));
    }

    @Override
    public void destroyEvent(MemorySegment event) {
        CALLS.run("hipEventDestroy", () -> (int) hipEventDestroy.invokeExact(event));
    }
}
