package dev.graphrt.backend.cuda;

import static dev.graphrt.driver.HardwareGraphErrors.SUCCESS;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.DriverCalls;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The typed layer of the CUDA driver's module calls, for {@link CudaKernelCompiler}: loading an image, finding and
 * loading a function, asking its parameters, unloading. Methods named {@code try...} return the raw code, because
 * the compiler reports a failure with the JIT log or the kernel's name.
 *
 * <p>Its raw handles are its own {@code static final} fields, bound on first use (after the probe found a driver);
 * an optional symbol the driver lacks (CUDA 12.4's {@code cuFuncGetParamInfo}, {@code cuFuncLoad}) is null.
 */
final class CudaModules {
    private static final MethodHandle cuModuleLoadDataEx = CudaHandles.BINDER.bind(Symbol.cuModuleLoadDataEx);
    private static final MethodHandle cuModuleGetFunction = CudaHandles.BINDER.bind(Symbol.cuModuleGetFunction);
    private static final MethodHandle cuModuleUnload = CudaHandles.BINDER.bind(Symbol.cuModuleUnload);
    private static final MethodHandle cuFuncGetParamInfo = CudaHandles.BINDER.bind(Symbol.cuFuncGetParamInfo);
    private static final MethodHandle cuFuncLoad = CudaHandles.BINDER.bind(Symbol.cuFuncLoad);

    private CudaModules() {}

    /** {@code cuModuleLoadDataEx}; the raw code, because the caller reports it with the JIT log. */
    static int tryModuleLoadDataEx(
            MemorySegment moduleOut,
            MemorySegment image,
            int optionCount,
            MemorySegment options,
            MemorySegment optionValues) {
        return DriverCalls.raw("cuModuleLoadDataEx", () ->
                (int) cuModuleLoadDataEx.invokeExact(moduleOut, image, optionCount, options, optionValues));
    }

    /** {@code cuModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        return DriverCalls.raw(
                "cuModuleGetFunction", () -> (int) cuModuleGetFunction.invokeExact(functionOut, module, name));
    }

    static void moduleUnload(MemorySegment module) {
        CudaDriver.CALLS.run("cuModuleUnload", () -> (int) cuModuleUnload.invokeExact(module));
    }

    /** Whether the driver can describe a function's parameters ({@code cuFuncGetParamInfo}, CUDA 12.4+). */
    static boolean hasParameterInfo() {
        return cuFuncGetParamInfo != null;
    }

    /** {@code cuFuncGetParamInfo}; the raw code: 1 (invalid value) past the last parameter. */
    static int tryFunctionParameterInfo(MemorySegment function, long index, MemorySegment offset, MemorySegment size) {
        return DriverCalls.raw(
                "cuFuncGetParamInfo", () -> (int) cuFuncGetParamInfo.invokeExact(function, index, offset, size));
    }

    /** Loads {@code function} now (CUDA 12.4+) so lazy loading never happens inside a capture; the raw code. */
    static int tryFunctionLoad(MemorySegment function) {
        return cuFuncLoad == null
                ? SUCCESS
                : DriverCalls.raw("cuFuncLoad", () -> (int) cuFuncLoad.invokeExact(function));
    }
}
