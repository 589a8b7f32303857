package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.driver.LoadedModules;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HIP C → code object with hiprtc for the current device, then {@code hipModuleLoadData}, then the entry
 * point's {@code hipFunction_t}. A kernel without HIP text compiles its CUDA C text
 * ({@link KernelSource#text(Dialect)} falls back), which HIP accepts for ordinary kernels.
 *
 * <p>Modules are cached by source text and unloaded when the backend closes. hiprtc is located on the first
 * compilation, so a machine without it can still open the backend. Module loading runs under a RELAXED
 * capture-mode exchange, so compiling a kernel for the first time while a stream captures does not
 * invalidate the capture. Unlike the cuda backend, no JIT log comes back from a failed load
 * ({@code hipModuleLoadData} has none) and the parameter count cannot be checked.
 */
final class HipKernelCompiler implements KernelCompiler {
    private static final Logger LOG = LoggerFactory.getLogger(HipKernelCompiler.class);

    private final HipDevice device;
    private final HiprtcLocator locator;
    private final LoadedModules modules = new LoadedModules("hip");
    private HiprtcLocator.Located hiprtc;

    HipKernelCompiler(HipDevice device, HiprtcLocator locator) {
        this.device = device;
        this.locator = locator;
    }

    @Override
    public List<Dialect> dialects() {
        return List.of(Dialect.HIP_C);
    }

    @Override
    public synchronized CompiledKernel compile(KernelSource source) {
        Objects.requireNonNull(source, "source");
        modules.ensureOpen();
        String entry = source.entryPoint();
        String text = source.text(Dialect.HIP_C).orElseThrow(() -> new KernelCompilationException(
                "kernel '" + entry + "' has neither HIP_C nor CUDA_C source: the hip backend compiles HIP C with "
                        + "hiprtc (CUDA C text is taken when no HIP text is given); add .hip(...) or .cuda(...) "
                        + "to its KernelSource", ""));
        device.makeCurrent();
        MemorySegment module = modules.module(text, t -> loadModule(entry, compileToCode(entry, t)));
        MemorySegment function = function(module, entry);
        LOG.debug("hip: compiled kernel '{}'", entry);
        return new HipKernel(entry, function);
    }

    /** Unloads every module. */
    synchronized void close() {
        if (modules.markClosed()) {
            device.makeCurrent();
            modules.unloadAll(HipRuntime::moduleUnload);
        }
    }

    private byte[] compileToCode(String entry, String text) {
        Hiprtc compiler = hiprtc();
        Hiprtc.Compilation result = compiler.compile(text, entry + ".hip", List.of());
        if (!result.succeeded()) {
            String what = result.result() == Hiprtc.ERROR_COMPILATION
                    ? "hiprtc could not compile kernel '" + entry + "'"
                    : "hiprtc failed on kernel '" + entry + "': " + result.result() + " " + result.resultName();
            throw new KernelCompilationException(what + " (" + compiler.origin() + ")", result.log());
        }
        if (!result.log().isBlank()) {
            LOG.debug("hip: hiprtc log for '{}': {}", entry, result.log());
        }
        return result.code().orElseThrow();
    }

    private Hiprtc hiprtc() {
        if (hiprtc == null) {
            hiprtc = locator.locate();
            hiprtc.hiprtc().ifPresent(h -> LOG.debug("hip: hiprtc {} from {}", h.version(), h.origin()));
        }
        return hiprtc.hiprtc().orElseThrow(() -> new KernelCompilationException(hiprtc.failure(), ""));
    }

    private MemorySegment loadModule(String entry, byte[] code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment image = arena.allocate(code.length + 1L, 16);
            MemorySegment.copy(code, 0, image, JAVA_BYTE, 0, code.length);
            image.set(JAVA_BYTE, code.length, (byte) 0); // harmless after a code object; ends a text image
            MemorySegment moduleOut = arena.allocate(ADDRESS);
            int rc = HipRuntime.withRelaxedCaptureMode(() -> HipRuntime.tryModuleLoadData(moduleOut, image));
            if (rc != HipNative.HIP_SUCCESS) {
                throw new KernelCompilationException("hipModuleLoadData could not load the code object of kernel '"
                        + entry + "': " + rc + " " + HipRuntime.resultName(rc), "");
            }
            return moduleOut.get(ADDRESS, 0);
        }
    }

    private MemorySegment function(MemorySegment module, String entry) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment functionOut = arena.allocate(ADDRESS);
            int rc = HipRuntime.tryModuleGetFunction(functionOut, module, arena.allocateFrom(entry));
            if (rc == HipNative.HIP_ERROR_NOT_FOUND || rc == HipNative.HIP_ERROR_INVALID_DEVICE_FUNCTION) {
                throw new KernelCompilationException("kernel entry point '" + entry + "' is not in the compiled "
                        + "module: declare it extern \"C\" __global__ void " + entry + "(...)", "");
            }
            HipRuntime.check("hipModuleGetFunction(" + entry + ")", rc);
            return functionOut.get(ADDRESS, 0);
        }
    }
}
