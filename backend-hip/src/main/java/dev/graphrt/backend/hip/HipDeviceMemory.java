package dev.graphrt.backend.hip;

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
enum HipDeviceMemory implements DeviceMemoryDriver {
    INSTANCE;

    @Override
    public long allocate(long bytes) {
        return HipRuntime.malloc(bytes);
    }

    @Override
    public void free(long pointer) {
        HipRuntime.free(pointer);
    }

    @Override
    public void copyToDevice(long address, MemorySegment src, long bytes) {
        HipRuntime.withRelaxedCaptureMode(() -> {
            HipRuntime.memcpyHtoD(address, src, bytes);
            return null;
        });
    }

    @Override
    public MemorySegment allocatePinned(long bytes) {
        return HipRuntime.withRelaxedCaptureMode(() -> HipRuntime.hostMalloc(bytes));
    }

    /** {@code hipHostFree} synchronises the device on ROCm: the streams call it only when no capture runs. */
    @Override
    public void freePinned(MemorySegment block) {
        HipRuntime.hostFree(block);
    }
}
