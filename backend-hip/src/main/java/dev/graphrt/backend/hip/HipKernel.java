package dev.graphrt.backend.hip;

import dev.graphrt.api.Dialect;
import dev.graphrt.spi.CompiledKernel;
import java.lang.foreign.MemorySegment;

/**
 * A compiled HIP C kernel: its {@code hipFunction_t} in a module the compiler keeps loaded. HIP has no
 * portable way to ask a function for its parameter count (CUDA's {@code cuFuncGetParamInfo}), so a launch
 * cannot check its binding count against the kernel; docs/kernels.md's layout is the contract.
 *
 * @param entryPoint the kernel's name
 * @param function   the {@code hipFunction_t}
 */
record HipKernel(String entryPoint, MemorySegment function) implements CompiledKernel {
    @Override
    public Dialect dialect() {
        return Dialect.HIP_C;
    }
}
