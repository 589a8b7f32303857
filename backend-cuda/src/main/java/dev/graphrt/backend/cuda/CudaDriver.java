package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaHandles.*;
import static dev.graphrt.driver.HardwareGraphErrors.SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverCaptureModes;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The typed layer of the CUDA driver API outside the stream: initialisation, devices, contexts, memory and
 * modules. Each method checks the {@code CUresult} of one raw {@link CudaHandles} handle and throws GraphRT's
 * exception for it ({@link #ERRORS}, through the shared {@link DriverCalls}); methods named {@code try...} return
 * the raw code instead, for probes and cleanup paths that must not throw. The stream and graph calls are
 * {@link CudaStream}'s and {@link CudaGraphs}'.
 *
 * <p>The handles are initialised on the first call, which the backend makes only after
 * {@link CudaLibrary#failure()} was empty, so a machine without a driver never fails in a class initialiser.
 * {@link #contextSetCurrent} runs on every entry, so it is a plain {@code invokeExact} that allocates nothing.
 */
final class CudaDriver {
    private CudaDriver() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code cuGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(CudaDriver::resultName);
    /** The checked-call helpers over {@link #ERRORS}, for the backend's typed calls. */
    static final DriverCalls CALLS = new DriverCalls(ERRORS);

    /** The driver's name for {@code code} ({@code cuGetErrorName}), or the table's when it has none. */
    static String resultName(int code) {
        if (CudaLibrary.failure().isEmpty()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int rc = (int) cuGetErrorName.invokeExact(code, out);
                String text = DriverCalls.cString(out.get(ADDRESS, 0));
                if (rc == SUCCESS && text != null) {
                    return text;
                }
            } catch (Throwable ignored) {
                // fall through to the table: naming an error must never raise another one
            }
        }
        String name = CudaNative.RESULT_NAMES.get(code);
        return name != null ? name : CudaNative.UNKNOWN_RESULT_PREFIX + "(" + code + ")";
    }

    static void check(String call, int rc) {
        CALLS.check(call, rc);
    }

    // ---- initialisation, devices, contexts ------------------------------------------------------------

    /** {@code cuInit(0)}; the raw code, because the probe reports a failure as a reason. */
    static int tryInit() {
        return DriverCalls.raw("cuInit", () -> (int) cuInit.invokeExact(0));
    }

    /** The driver's CUDA version, e.g. 13000 for 13.0. */
    static int driverVersion() {
        return CALLS.intOut("cuDriverGetVersion", out -> (int) cuDriverGetVersion.invokeExact(out));
    }

    static int deviceCount() {
        return CALLS.intOut("cuDeviceGetCount", out -> (int) cuDeviceGetCount.invokeExact(out));
    }

    /** The {@code CUdevice} of ordinal {@code ordinal}. */
    static int device(int ordinal) {
        return CALLS.intOut("cuDeviceGet", out -> (int) cuDeviceGet.invokeExact(out, ordinal));
    }

    static String deviceName(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            CALLS.run("cuDeviceGetName", () -> (int) cuDeviceGetName.invokeExact(out, 256, device));
            out.set(JAVA_BYTE, 255, (byte) 0);
            return out.getString(0);
        }
    }

    static long deviceTotalMemory(int device) {
        return CALLS.longOut("cuDeviceTotalMem_v2", out -> (int) cuDeviceTotalMem.invokeExact(out, device));
    }

    static int deviceAttribute(int attribute, int device) {
        return CALLS.intOut("cuDeviceGetAttribute(" + attribute + ")",
                out -> (int) cuDeviceGetAttribute.invokeExact(out, attribute, device));
    }

    static MemorySegment primaryContextRetain(int device) {
        return CALLS.addressOut("cuDevicePrimaryCtxRetain",
                out -> (int) cuDevicePrimaryCtxRetain.invokeExact(out, device));
    }

    static void primaryContextRelease(int device) {
        CALLS.run("cuDevicePrimaryCtxRelease_v2", () -> (int) cuDevicePrimaryCtxRelease.invokeExact(device));
    }

    /**
     * Whether the current context holds a sticky error (an illegal address, a trap): then it must be reset before
     * the device works again. Waits for the context's work, which is done at a backend's close anyway.
     */
    static boolean contextLost() {
        try {
            return HardwareGraphErrors.isSticky((int) cuCtxSynchronize.invokeExact());
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuCtxSynchronize", t);
        }
    }

    /** Destroys every allocation and all state of the device's primary context: the way out of a sticky error. */
    static void primaryContextReset(int device) {
        CALLS.run("cuDevicePrimaryCtxReset_v2", () -> (int) cuDevicePrimaryCtxReset.invokeExact(device));
    }

    /** Binds {@code context} to the calling thread; cheap when it already is. Hot: on every entry. */
    static void contextSetCurrent(MemorySegment context) {
        try { // hot: no lambda
            check("cuCtxSetCurrent", (int) cuCtxSetCurrent.invokeExact(context));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuCtxSetCurrent", t);
        }
    }

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it: a host
     * allocation or module load made this way does not invalidate a GLOBAL or THREAD_LOCAL capture in progress
     * (the H200 probes: {@code cuMemAlloc_v2} under a relaxed exchange succeeds mid-capture).
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        return CALLS.withRelaxedCaptureMode("cuThreadExchangeStreamCaptureMode", cuThreadExchangeStreamCaptureMode,
                DriverCaptureModes.RELAXED, action);
    }

    // ---- memory ----------------------------------------------------------------------------------------

    /** A device allocation of {@code bytes}; out-of-memory raises {@code DeviceOutOfMemoryException}. */
    static long memAlloc(long bytes) {
        return CALLS.allocationOut("cuMemAlloc_v2", bytes, out -> (int) cuMemAlloc.invokeExact(out, bytes)).address();
    }

    static void memFree(long pointer) {
        CALLS.run("cuMemFree_v2", () -> (int) cuMemFree.invokeExact(pointer));
    }

    /** Page-locked host memory of {@code bytes}, as a segment of that size. */
    static MemorySegment memAllocHost(long bytes) {
        return CALLS.allocationOut("cuMemAllocHost_v2", bytes, out -> (int) cuMemAllocHost.invokeExact(out, bytes));
    }

    static void memFreeHost(MemorySegment pinned) {
        CALLS.run("cuMemFreeHost", () -> (int) cuMemFreeHost.invokeExact(pinned));
    }

    /** Synchronous host-to-device copy; {@code src} must be a native segment. */
    static void memcpyHtoD(long dst, MemorySegment src, long bytes) {
        CALLS.run("cuMemcpyHtoD_v2", () -> (int) cuMemcpyHtoD.invokeExact(dst, src, bytes));
    }

    // ---- modules and launches --------------------------------------------------------------------------

    /** {@code cuModuleLoadDataEx}; the raw code, because the caller reports it with the JIT log. */
    static int tryModuleLoadDataEx(MemorySegment moduleOut, MemorySegment image, int optionCount,
                                   MemorySegment options, MemorySegment optionValues) {
        return DriverCalls.raw("cuModuleLoadDataEx",
                () -> (int) cuModuleLoadDataEx.invokeExact(moduleOut, image, optionCount, options, optionValues));
    }

    /** {@code cuModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        return DriverCalls.raw("cuModuleGetFunction",
                () -> (int) cuModuleGetFunction.invokeExact(functionOut, module, name));
    }

    static void moduleUnload(MemorySegment module) {
        CALLS.run("cuModuleUnload", () -> (int) cuModuleUnload.invokeExact(module));
    }

    /** Whether the driver can describe a function's parameters ({@code cuFuncGetParamInfo}, CUDA 12.4+). */
    static boolean hasParameterInfo() {
        return cuFuncGetParamInfo != null;
    }

    /** {@code cuFuncGetParamInfo}; the raw code: 1 (invalid value) past the last parameter. */
    static int tryFunctionParameterInfo(MemorySegment function, long index, MemorySegment offset, MemorySegment size) {
        return DriverCalls.raw("cuFuncGetParamInfo",
                () -> (int) cuFuncGetParamInfo.invokeExact(function, index, offset, size));
    }

    /** Loads {@code function} now (CUDA 12.4+) so lazy loading never happens inside a capture; the raw code. */
    static int tryFunctionLoad(MemorySegment function) {
        return cuFuncLoad == null ? SUCCESS
                : DriverCalls.raw("cuFuncLoad", () -> (int) cuFuncLoad.invokeExact(function));
    }
}
