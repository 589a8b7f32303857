package dev.graphrt.backend.hip;

import dev.graphrt.driver.DeviceMemoryCalls;
import dev.graphrt.driver.DeviceMemoryDriver;
import dev.graphrt.driver.DriverDeviceMemory;
import java.lang.foreign.MemorySegment;

/**
 * Raw device storage and pinned host memory through {@code hipMalloc}/{@code hipFree} and
 * {@code hipHostMalloc}/{@code hipHostFree}: the runtime calls behind the shared {@link DriverDeviceMemory},
 * which does the checks and makes the device current first. A pinned allocation exchanges the thread's capture
 * mode to RELAXED. The core never allocates or frees while a stream of this backend records, which matters more
 * on HIP than on CUDA: ROCm's {@code hipFree} synchronises the device.
 *
 * <p>An upload is a synchronous {@code hipMemcpyHtoD}, made under a RELAXED capture-mode exchange: every
 * stream of this backend is non-blocking, so the copy does not wait for them, and the exchange keeps it from
 * counting as an unsafe call against a GLOBAL or THREAD_LOCAL capture in progress on another stream (the
 * cuda backend needs no exchange here: the H200 showed {@code cuMemcpyHtoD_v2} is legal then; for ROCm no
 * such measurement exists, so this backend does not rely on it).
 */
final class HipDeviceMemory {
    private HipDeviceMemory() {
    }

    /**
     * The runtime's memory calls, for {@link DriverDeviceMemory}. {@code hipHostFree} synchronises the device on
     * ROCm: the streams call it only when no capture runs.
     */
    static final DeviceMemoryDriver CALLS = new DeviceMemoryCalls(HipRuntime::malloc, HipRuntime::free,
            HipDeviceMemory::relaxedCopy, bytes -> HipRuntime.withRelaxedCaptureMode(() -> HipRuntime.hostMalloc(bytes)),
            HipRuntime::hostFree);

    private static void relaxedCopy(long address, MemorySegment src, long bytes) {
        HipRuntime.withRelaxedCaptureMode(() -> {
            HipRuntime.memcpyHtoD(address, src, bytes);
            return null;
        });
    }
}
