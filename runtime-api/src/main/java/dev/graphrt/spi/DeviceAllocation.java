package dev.graphrt.spi;

/**
 * One block of raw device storage obtained from {@link DeviceMemory#allocate}. The backend's own type
 * (a CUDA device pointer, a WebGPU buffer, a memory segment); the core only slices it.
 */
public interface DeviceAllocation {
    /** Bytes of the block. */
    long byteSize();
}
