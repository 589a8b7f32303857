package dev.graphrt.backend.hip;

import dev.graphrt.driver.PinnedHostMemory;
import java.lang.foreign.MemorySegment;

/**
 * The runtime's page-locked host memory ({@code hipHostMalloc} with {@code hipHostMallocDefault},
 * {@code hipHostFree}). Allocation exchanges the thread's capture mode to RELAXED so that it never invalidates
 * a capture in progress. {@code hipHostFree} synchronises the device on ROCm, so the backend only calls
 * {@link #free} through {@link dev.graphrt.driver.CaptureAwareReleases}, never while a stream captures.
 */
final class HipPinnedMemory implements PinnedHostMemory {
    private final HipDevice device;

    HipPinnedMemory(HipDevice device) {
        this.device = device;
    }

    @Override
    public MemorySegment allocate(long bytes) {
        device.makeCurrent();
        return HipRuntime.withRelaxedCaptureMode(() -> HipRuntime.hostMalloc(bytes));
    }

    @Override
    public void free(MemorySegment block) {
        device.makeCurrent();
        HipRuntime.hostFree(block);
    }
}
