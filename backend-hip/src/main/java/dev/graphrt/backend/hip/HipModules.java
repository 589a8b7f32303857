package dev.graphrt.backend.hip;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.DriverCalls;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The typed layer of the HIP runtime's module calls, for {@link HipKernelCompiler}: loading a code object,
 * finding a function, unloading. Methods named {@code try...} return the raw code, because the compiler reports a
 * failure with the kernel's name. Its raw handles are its own {@code static final} fields, bound on first use
 * (after the probe found a runtime).
 */
final class HipModules {
    private static final MethodHandle hipModuleLoadData = HipHandles.BINDER.bind(Symbol.hipModuleLoadData);
    private static final MethodHandle hipModuleGetFunction = HipHandles.BINDER.bind(Symbol.hipModuleGetFunction);
    private static final MethodHandle hipModuleUnload = HipHandles.BINDER.bind(Symbol.hipModuleUnload);

    private HipModules() {}

    /** {@code hipModuleLoadData}; the raw code, because the compiler reports a failure with the kernel's name. */
    static int tryModuleLoadData(MemorySegment moduleOut, MemorySegment image) {
        return DriverCalls.raw("hipModuleLoadData", () -> (int) hipModuleLoadData.invokeExact(moduleOut, image));
    }

    /** {@code hipModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        return DriverCalls.raw(
                "hipModuleGetFunction", () -> (int) hipModuleGetFunction.invokeExact(functionOut, module, name));
    }

    static void moduleUnload(MemorySegment module) {
        HipRuntime.CALLS.run("hipModuleUnload", () -> (int) hipModuleUnload.invokeExact(module));
    }
}
