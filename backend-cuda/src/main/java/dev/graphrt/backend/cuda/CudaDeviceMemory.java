package dev.graphrt.backend.cuda;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Raw device storage through {@code cuMemAlloc_v2}/{@code cuMemFree_v2}. Policy (pools, priming, pinning)
 * belongs to the core; this class only turns its requests into driver calls.
 *
 * <p>{@link #upload} is a synchronous {@code cuMemcpyHtoD_v2}: every stream of this backend is
 * non-blocking, so the copy does not synchronise with them and is legal while one of them captures
 * (H200 probe 10), which is exactly what the core needs for info buffers.
 */
final class CudaDeviceMemory implements DeviceMemory {
    /** cuMemAlloc returns 256-byte aligned blocks; slices keep that alignment for vectorised access. */
    static final long ALIGNMENT = 256;

    private final CudaContext context;

    CudaDeviceMemory(CudaContext context) {
        this.context = context;
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
        context.makeCurrent();
        return new CudaAllocation(CudaDriver.memAlloc(bytes), bytes);
    }

    @Override
    public void free(DeviceAllocation allocation) {
        Objects.requireNonNull(allocation, "allocation");
        if (!(allocation instanceof CudaAllocation cuda)) {
            throw new IllegalArgumentException("allocation " + allocation + " does not belong to the cuda backend");
        }
        context.makeCurrent();
        CudaDriver.memFree(cuda.pointer());
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
        long address = CudaAllocation.address(dst);
        context.makeCurrent();
        if (src.isNative()) {
            CudaDriver.memcpyHtoD(address, src, bytes);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(bytes, 16);
            copy.copyFrom(src);
            CudaDriver.memcpyHtoD(address, copy, bytes);
        }
    }
}
