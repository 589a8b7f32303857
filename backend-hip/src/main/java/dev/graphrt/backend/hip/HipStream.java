package dev.graphrt.backend.hip;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.GraphCalls;
import dev.graphrt.driver.StreamDriver;
import java.lang.foreign.MemorySegment;

/**
 * The HIP runtime's stream calls, for the shared {@link dev.graphrt.driver.DriverStream}: each one
 * {@link HipRuntime} call; the graph calls are {@link HipGraphs}. Streams are {@code hipStreamNonBlocking} (never
 * the null stream); fence events have timing disabled.
 *
 * <p>Where it differs from cuda: the device, not a context, is made current ({@code hipSetDevice}); a launch
 * cannot check its parameter count (HIP cannot tell it); and pinned staging memory is freed only when no capture
 * of the backend runs, also at close, because ROCm's {@code hipHostFree} synchronises the whole device and would
 * invalidate another stream's capture.
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
        return HipRuntime.streamCreate(HipNative.HIP_STREAM_NON_BLOCKING);
    }

    @Override
    public void destroyStream(MemorySegment stream) {
        HipRuntime.streamDestroy(stream);
    }

    @Override
    public void synchronize(MemorySegment stream) {
        HipRuntime.streamSynchronize(stream);
    }

    @Override
    public int tryQuery(MemorySegment stream) {
        return HipRuntime.tryStreamQuery(stream);
    }

    @Override
    public void launch(MemorySegment function, LaunchDims d, MemorySegment params, MemorySegment stream) {
        HipRuntime.launchKernel(function, d.gridX(), d.gridY(), d.gridZ(), d.blockX(), d.blockY(), d.blockZ(), stream,
                params);
    }

    @Override
    public void copyToDevice(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        HipRuntime.memcpyHtoDAsync(dst, src, bytes, stream);
    }

    @Override
    public void copyToHost(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        HipRuntime.memcpyDtoHAsync(dst, src, bytes, stream);
    }

    @Override
    public MemorySegment createEvent() {
        return HipRuntime.eventCreate(HipNative.HIP_EVENT_DISABLE_TIMING);
    }

    @Override
    public void recordEvent(MemorySegment event, MemorySegment stream) {
        HipRuntime.eventRecord(event, stream);
    }

    @Override
    public boolean queryEvent(MemorySegment event) {
        return HipRuntime.eventQuery(event);
    }

    @Override
    public void synchronizeEvent(MemorySegment event) {
        HipRuntime.eventSynchronize(event);
    }

    @Override
    public void destroyEvent(MemorySegment event) {
        HipRuntime.eventDestroy(event);
    }
}
