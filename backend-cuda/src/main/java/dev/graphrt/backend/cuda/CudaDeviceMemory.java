package dev.graphrt.backend.cuda;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.driver.DeviceMemoryDriver;
import dev.graphrt.driver.DriverDeviceMemory;
import java.lang.foreign.MemorySegment;

/**
 * Raw device storage through {@code cuMemAlloc_v2}/{@code cuMemFree_v2}: the driver calls behind the shared
 * {@link DriverDeviceMemory} ({@link #create}), which does the checks.
 *
 * <p>An upload is a synchronous {@code cuMemcpyHtoD_v2}: every stream of this backend is non-blocking, so the
 * copy does not synchronise with them and is legal while one of them captures (H200 probe 10), which is
 * exactly what the core needs for info buffers.
 *
 * @param context the backend's context, made current before every call
 */
record CudaDeviceMemory(CudaContext context) implements DeviceMemoryDriver {
    /** cuMemAlloc returns 256-byte aligned blocks; slices keep that alignment for vectorised access. */
    static final long ALIGNMENT = 256;

    /** The backend's {@code DeviceMemory}. */
    static DriverDeviceMemory create(CudaContext context) {
        return new DriverDeviceMemory(new CudaDeviceMemory(context), ALIGNMENT);
    }

    @Override
    public String backend() {
        return "cuda";
    }

    @Override
    public void makeCurrent() {
        context.makeCurrent();
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        return new CudaAllocation(CudaDriver.memAlloc(bytes), bytes);
    }

    @Override
    public boolean owns(DeviceAllocation allocation) {
        return allocation instanceof CudaAllocation;
    }

    @Override
    public void free(DeviceAllocation allocation) {
        CudaDriver.memFree(((CudaAllocation) allocation).pointer());
    }

    @Override
    public long address(DeviceSlice slice) {
        return CudaAllocation.address(slice);
    }

    @Override
    public void copyToDevice(long address, MemorySegment src, long bytes) {
        CudaDriver.memcpyHtoD(address, src, bytes);
    }
}
