package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.KernelToolchain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cuda steps of the shared {@link dev.graphrt.driver.DriverKernelCompiler}: CUDA C → PTX with NVRTC for the
 * device's compute capability, then PTX → module with {@code cuModuleLoadDataEx} (capturing the JIT's error log),
 * then the entry point's {@code CUfunction}, loaded eagerly, and its parameters checked (CUDA 12.4+).
 *
 * <p>NVRTC is located on the first compilation, so a machine without it can still open the backend (memory,
 * copies, graphs of kernels compiled elsewhere). Module loading runs under a RELAXED capture-mode exchange and
 * the function is loaded eagerly, so compiling a kernel for the first time while a stream captures does not
 * invalidate the capture. Called under the compiler's lock.
 */
final class CudaKernelCompiler implements KernelToolchain {
    private static final Logger LOG = LoggerFactory.getLogger(CudaKernelCompiler.class);
    private static final int JIT_LOG_BYTES = 16 << 10;

    /**
     * The two functions of an opted-in kernel: {@code griddepcontrol.wait} (wait until every grid ahead of it has
     * finished and its writes are visible) and {@code griddepcontrol.launch_dependents} (let the next grid start),
     * on compute capability 9.0 and up; nothing below it, where the PTX instructions do not exist.
     */
    static final String PRELUDE = "static __device__ __forceinline__ void graphrt_wait_for_predecessors() {\n"
            + "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
            + "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
            + "#endif\n"
            + "}\n"
            + "static __device__ __forceinline__ void graphrt_launch_dependents() {\n"
            + "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
            + "    asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\");\n"
            + "#endif\n"
            + "}\n";

    private final CudaDeviceDescription device;
    private final NvrtcLocator locator;
    private final boolean dependentLaunches;
    private NvrtcLocator.Located nvrtc;
    private String architecture;

    /**
     * The compiler for {@code device}, finding NVRTC through {@code locator}; opted-in kernels are launched as
     * programmatic dependents when {@code dependentLaunches} (the backend declares the capability).
     */
    CudaKernelCompiler(CudaDeviceDescription device, NvrtcLocator locator, boolean dependentLaunches) {
        this.device = device;
        this.locator = locator;
        this.dependentLaunches = dependentLaunches;
    }

    @Override
    public boolean launchesAsDependent(KernelSource source) {
        return dependentLaunches && source.isProgrammaticDependent();
    }

    @Override
    public String dependentLaunchPrelude() {
        return PRELUDE;
    }

    @Override
    public Dialect dialect() {
        return Dialect.CUDA_C;
    }

    @Override
    public String missingSourceMessage(String entry) {
        return "kernel '" + entry + "' has no CUDA_C source: the cuda backend compiles CUDA_C only (NVRTC); "
                + "add .cuda(...) to its KernelSource";
    }

    /** NVRTC's version and the architecture it compiles for: the PTX depends on both and on nothing else. */
    @Override
    public String imageKey() {
        Nvrtc compiler = nvrtc();
        return "NVRTC " + compiler.version() + " --gpu-architecture=" + architecture(compiler);
    }

    @Override
    public byte[] compile(String entry, String text) {
        Nvrtc compiler = nvrtc();
        return compiler.compile(entry, text, architecture(compiler));
    }

    private Nvrtc nvrtc() {
        if (nvrtc == null) {
            nvrtc = locator.locate();
            nvrtc.nvrtc().ifPresent(n -> LOG.debug("cuda: NVRTC {} from {}", n.version(), n.origin()));
        }
        return nvrtc.nvrtc().orElseThrow(() -> new KernelCompilationException(nvrtc.failure(), ""));
    }

    /** {@code compute_XY}: the device's capability, or the newest NVRTC supports below it. */
    private String architecture(Nvrtc compiler) {
        if (architecture == null) {
            int wanted = device.computeCapability();
            int chosen = wanted;
            int best = -1;
            for (int arch : compiler.supportedArchitectures()) {
                if (arch <= wanted && arch > best) {
                    best = arch;
                }
            }
            if (best > 0) {
                chosen = best;
            }
            architecture = "compute_" + chosen;
        }
        return architecture;
    }

    @Override
    public MemorySegment loadModule(String entry, byte[] ptx) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment image = arena.allocate(ptx.length + 1L);
            MemorySegment.copy(ptx, 0, image, JAVA_BYTE, 0, ptx.length);
            image.set(JAVA_BYTE, ptx.length, (byte) 0);
            MemorySegment errorLog = arena.allocate(JIT_LOG_BYTES);
            MemorySegment options = arena.allocate(JAVA_INT, 2);
            MemorySegment values = arena.allocate(ADDRESS, 2);
            options.setAtIndex(JAVA_INT, 0, CudaNative.CU_JIT_ERROR_LOG_BUFFER);
            values.setAtIndex(ADDRESS, 0, errorLog);
            options.setAtIndex(JAVA_INT, 1, CudaNative.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            values.setAtIndex(ADDRESS, 1, MemorySegment.ofAddress(JIT_LOG_BYTES)); // the value itself, not a pointer
            MemorySegment moduleOut = arena.allocate(ADDRESS);
            int rc = CudaDriver.withRelaxedCaptureMode(
                    () -> CudaModules.tryModuleLoadDataEx(moduleOut, image, 2, options, values));
            if (rc != HardwareGraphErrors.SUCCESS) {
                errorLog.set(JAVA_BYTE, JIT_LOG_BYTES - 1, (byte) 0);
                String hint = rc == 222
                        ? "; NVRTC " + nvrtc().version() + " emits PTX newer than the driver ("
                                + CudaDeviceDescription.versionText(device.driverVersion())
                                + ") accepts: point " + NvrtcLocator.OPTION + " at an NVRTC no newer than the driver"
                        : "";
                throw new KernelCompilationException(
                        "cuModuleLoadDataEx could not load the PTX of kernel '" + entry + "': " + rc + " "
                                + CudaDriver.resultName(rc) + hint,
                        errorLog.getString(0).strip());
            }
            return moduleOut.get(ADDRESS, 0);
        }
    }

    @Override
    public MemorySegment function(MemorySegment module, String entry) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment functionOut = arena.allocate(ADDRESS);
            int rc = CudaModules.tryModuleGetFunction(functionOut, module, arena.allocateFrom(entry));
            if (rc == HardwareGraphErrors.NOT_FOUND) {
                throw new KernelCompilationException(
                        "kernel entry point '" + entry + "' is not in the compiled "
                                + "module: declare it extern \"C\" __global__ void " + entry + "(...)",
                        "");
            }
            CudaDriver.check("cuModuleGetFunction(" + entry + ")", rc);
            MemorySegment function = functionOut.get(ADDRESS, 0);
            int loaded = CudaDriver.withRelaxedCaptureMode(() -> CudaModules.tryFunctionLoad(function));
            if (loaded != HardwareGraphErrors.SUCCESS) {
                LOG.debug(
                        "cuda: cuFuncLoad({}) returned {} {}; the driver loads it at first launch",
                        entry,
                        loaded,
                        CudaDriver.resultName(loaded));
            }
            return function;
        }
    }

    /**
     * The parameter count from {@code cuFuncGetParamInfo} (CUDA 12.4+, bound as an optional symbol), after checking
     * every parameter is a pointer (docs/kernels.md); -1 when the driver lacks it, and {@code DriverKernelCompiler}
     * then counts the {@code extern "C" __global__} declaration in the source.
     */
    @Override
    public int parameterCount(String entry, MemorySegment function) {
        if (!CudaModules.hasParameterInfo()) {
            return -1;
        }
        List<String> wrong = new ArrayList<>();
        int count = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offset = arena.allocate(JAVA_LONG);
            MemorySegment size = arena.allocate(JAVA_LONG);
            for (; count < 4096; count++) {
                int rc = CudaModules.tryFunctionParameterInfo(function, count, offset, size);
                if (rc == HardwareGraphErrors.INVALID_VALUE) {
                    break; // count is past the last parameter
                }
                if (rc != HardwareGraphErrors.SUCCESS) {
                    return -1;
                }
                if (size.get(JAVA_LONG, 0) != Long.BYTES) {
                    wrong.add("parameter " + count + " is " + size.get(JAVA_LONG, 0) + " bytes");
                }
            }
        }
        if (!wrong.isEmpty()) {
            throw new KernelCompilationException(
                    "kernel '" + entry + "' must take only pointers (buffers, then "
                            + "const int* info; docs/kernels.md), but " + String.join(", ", wrong),
                    "");
        }
        return count;
    }

    @Override
    public void unloadModule(MemorySegment module) {
        CudaModules.moduleUnload(module);
    }
}
