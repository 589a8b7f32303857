package dev.graphrt.backend.hip;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Raw device storage through {@code hipMalloc}/{@code hipFree}. Policy (pools, priming, pinning) belongs to
 * the core; this class only turns its requests into runtime calls. The core never allocates or frees while a
 * stream of this backend records, which matters more on HIP than on CUDA: ROCm's {@code hipFree} synchronises
 * the device.
 *
 * <p>{@link #upload} is a synchronous {@code hipMemcpyHtoD}, made under a RELAXED capture-mode exchange: every
 * stream of this backend is non-blocking, so the copy does not wait for them, and the exchange keeps it from
 * counting as an unsafe call against a GLOBAL or THREAD_LOCAL capture in progress on another stream (the
 * cuda backend needs no exchange here: the H200 showed {@code cuMemcpyHtoD_v2} is legal then; for ROCm no
 * such measurement exists, so this backend does not rely on it).
 */
final class HipDeviceMemory implements DeviceMemory {
    /** hipMalloc returns blocks aligned to at least 256 bytes; slices keep that alignment. */
    static final long ALIGNMENT = 256;

    private final HipDevice device;

    HipDeviceMemory(HipDevice device) {
        this.device = device;
    }

    @Override
    public long alignment() {
        return ALIGNMENT;
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive, was " + bytes);
        }
        device.makeCurrent();
        return new HipAllocation(HipRuntime.malloc(bytes), bytes);
    }

    @Override
    public void free(DeviceAllocation allocation) {
        Objects.requireNonNull(allocation, "allocation");
        if (!(allocation instanceof HipAllocation hip)) {
            throw new IllegalArgumentException("allocation " + allocation + " does not belong to the hip backend");
        }
        device.makeCurrent();
        HipRuntime.free(hip.pointer());
    }

    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        long bytes = src.byteSize();
        if (bytes > dst.length()) {
            throw new IllegalArgumentException("upload of " + bytes + " bytes into a slice of " + dst.length());
        }
        if (bytes == 0) {
            return;
        }
        long address = HipAllocation.address(dst);
        device.makeCurrent();
        if (src.isNative()) {
            copy(address, src, bytes);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(bytes, 16);
            copy.copyFrom(src);
            copy(address, copy, bytes);
        }
    }

    private static void copy(long address, MemorySegment src, long bytes) {
        HipRuntime.withRelaxedCaptureMode(() -> {
            HipRuntime.memcpyHtoD(address, src, bytes);
            return null;
        });
    }
}
