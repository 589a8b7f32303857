package dev.graphrt.backend.cuda;

import dev.graphrt.api.Dialect;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;

/**
 * A compiled CUDA C kernel: its {@code CUfunction} in a module the compiler keeps loaded.
 *
 * @param entryPoint     the kernel's name
 * @param function       the {@code CUfunction}
 * @param parameterCount parameters the kernel takes, or -1 when the driver cannot tell (before CUDA 12.4)
 */
record CudaKernel(String entryPoint, MemorySegment function, int parameterCount) implements CompiledKernel {
    @Override
    public Dialect dialect() {
        return Dialect.CUDA_C;
    }
}
