package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.KernelToolchain;
import dev.graphrt.driver.RuntimeCompiler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hip steps of the shared {@link dev.graphrt.driver.DriverKernelCompiler}: HIP C → code object with hiprtc
 * for the current device, then {@code hipModuleLoadData}, then the entry point's {@code hipFunction_t}. A kernel
 * without HIP text compiles its CUDA C text ({@link KernelSource#text(Dialect)} falls back), which HIP accepts
 * for ordinary kernels.
 *
 * <p>hiprtc is located on the first compilation, so a machine without it can still open the backend. Module
 * loading runs under a RELAXED capture-mode exchange, so compiling a kernel for the first time while a stream
 * captures does not invalidate the capture. Unlike the cuda backend, no JIT log comes back from a failed load
 * ({@code hipModuleLoadData} has none) and the parameter count cannot be checked. Called under the compiler's lock.
 */
final class HipKernelCompiler implements KernelToolchain {
    private static final Logger LOG = LoggerFactory.getLogger(HipKernelCompiler.class);

    private final HiprtcLocator locator;
    private final String device;
    private HiprtcLocator.Located hiprtc;

    /** Compiles with the hiprtc {@code locator} finds, for the current device, which {@code device} describes. */
    HipKernelCompiler(HiprtcLocator locator, String device) {
        this.locator = locator;
        this.device = device;
    }

    @Override
    public Dialect dialect() {
        return Dialect.HIP_C;
    }

    @Override
    public String missingSourceMessage(String entry) {
        return "kernel '" + entry + "' has neither HIP_C nor CUDA_C source: the hip backend compiles HIP C with "
                + "hiprtc (CUDA C text is taken when no HIP text is given); add .hip(...) or .cuda(...) "
                + "to its KernelSource";
    }

    /** hiprtc's version and the device it compiles for (hiprtc targets the current device; no options). */
    @Override
    public String imageKey() {
        return "hiprtc " + hiprtc().version() + " for " + device;
    }

    @Override
    public byte[] compile(String entry, String text) {
        return hiprtc().compileOrThrow(entry, text, entry + ".hip", List.of(), "");
    }

    private RuntimeCompiler hiprtc() {
        if (hiprtc == null) {
            hiprtc = locator.locate();
            hiprtc.hiprtc().ifPresent(h -> LOG.debug("hip: hiprtc {} from {}", h.version(), h.origin()));
        }
        return hiprtc.hiprtc().orElseThrow(() -> new KernelCompilationException(hiprtc.failure(), ""));
    }

    @Override
    public MemorySegment loadModule(String entry, byte[] code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment image = arena.allocate(code.length + 1L, 16);
            MemorySegment.copy(code, 0, image, JAVA_BYTE, 0, code.length);
            image.set(JAVA_BYTE, code.length, (byte) 0); // harmless after a code object; ends a text image
            MemorySegment moduleOut = arena.allocate(ADDRESS);
            int rc = HipRuntime.withRelaxedCaptureMode(() -> HipModules.tryModuleLoadData(moduleOut, image));
            if (rc != HardwareGraphErrors.SUCCESS) {
                throw new KernelCompilationException(
                        "hipModuleLoadData could not load the code object of kernel '" + entry + "': " + rc + " "
                                + HipRuntime.resultName(rc),
                        "");
            }
            return moduleOut.get(ADDRESS, 0);
        }
    }

    @Override
    public MemorySegment function(MemorySegment module, String entry) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment functionOut = arena.allocate(ADDRESS);
            int rc = HipModules.tryModuleGetFunction(functionOut, module, arena.allocateFrom(entry));
            if (rc == HardwareGraphErrors.NOT_FOUND || rc == HipNative.HIP_ERROR_INVALID_DEVICE_FUNCTION) {
                throw new KernelCompilationException(
                        "kernel entry point '" + entry + "' is not in the compiled "
                                + "module: declare it extern \"C\" __global__ void " + entry + "(...)",
                        "");
            }
            HipRuntime.check("hipModuleGetFunction(" + entry + ")", rc);
            return functionOut.get(ADDRESS, 0);
        }
    }

    /**
     * HIP cannot tell a function's parameters (ROCm 5.2 has no query): -1, so {@code DriverKernelCompiler} counts
     * them from the {@code extern "C" __global__} declaration in the source instead.
     */
    @Override
    public int parameterCount(String entry, MemorySegment function) {
        return -1;
    }

    @Override
    public void unloadModule(MemorySegment module) {
        HipModules.moduleUnload(module);
    }
}
