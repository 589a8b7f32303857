package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaHandles.*;
import static dev.graphrt.backend.cuda.CudaNative.CUDA_SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The CUDA driver API in two layers: raw {@code static final} downcall handles ({@link CudaHandles}, bound from
 * {@link CudaNative.Symbol} by the shared binder) and typed methods over them that check the {@code CUresult}
 * and throw GraphRT's exception for it ({@link #ERRORS}, through {@link DriverCalls}). Methods named
 * {@code try...} return the raw code instead, for probes and cleanup paths that must not throw.
 *
 * <p>Why {@code static final} handles in a holder: the JIT treats them as constants and inlines the downcall,
 * which keeps a launch within a few nanoseconds of C. The holder is initialised on the first call, which the
 * backend makes only after {@link CudaLibrary#failure()} was empty, so a machine without a driver never fails in
 * a class initialiser. Hot paths (launch, async copy, event record and query, graph launch) are hand-written
 * {@code invokeExact} calls that allocate nothing.
 */
final class CudaDriver {
    private CudaDriver() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code cuGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(CudaDriver::resultName);
    private static final DriverCalls CALLS = new DriverCalls(ERRORS);

    /** The driver's name for {@code code} ({@code cuGetErrorName}), or the table's when it has none. */
    static String resultName(int code) {
        if (CudaLibrary.failure().isEmpty()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int rc = (int) cuGetErrorName.invokeExact(code, out);
                String text = DriverCalls.cString(out.get(ADDRESS, 0));
                if (rc == CUDA_SUCCESS && text != null) {
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
                CudaNative.CU_STREAM_CAPTURE_MODE_RELAXED, action);
    }

    // ---- streams and memory ----------------------------------------------------------------------------

    static MemorySegment streamCreate(int flags) {
        return CALLS.addressOut("cuStreamCreate", out -> (int) cuStreamCreate.invokeExact(out, flags));
    }

    static void streamDestroy(MemorySegment stream) {
        CALLS.run("cuStreamDestroy_v2", () -> (int) cuStreamDestroy.invokeExact(stream));
    }

    static void streamSynchronize(MemorySegment stream) {
        CALLS.run("cuStreamSynchronize", () -> (int) cuStreamSynchronize.invokeExact(stream));
    }

    /** {@code cuStreamQuery}: 0 idle, 600 busy, anything else an asynchronous error of earlier work. */
    static int tryStreamQuery(MemorySegment stream) {
        return DriverCalls.raw("cuStreamQuery", () -> (int) cuStreamQuery.invokeExact(stream));
    }

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

    /** Stream-ordered host-to-device copy; {@code src} must stay valid until the copy ran (pinned staging). */
    static void memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        try { // hot: no lambda
            check("cuMemcpyHtoDAsync_v2", (int) cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuMemcpyHtoDAsync_v2", t);
        }
    }

    /** Stream-ordered device-to-host copy into pinned memory. */
    static void memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        CALLS.run("cuMemcpyDtoHAsync_v2", () -> (int) cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream));
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
        return cuFuncLoad == null ? CUDA_SUCCESS
                : DriverCalls.raw("cuFuncLoad", () -> (int) cuFuncLoad.invokeExact(function));
    }

    /** Launches {@code function} on {@code stream} with {@code params} ({@code void**}), no shared memory. */
    static void launchKernel(MemorySegment function, int gridX, int gridY, int gridZ,
                             int blockX, int blockY, int blockZ, MemorySegment stream, MemorySegment params) {
        try { // hot: no lambda
            check("cuLaunchKernel", (int) cuLaunchKernel.invokeExact(function, gridX, gridY, gridZ,
                    blockX, blockY, blockZ, 0, stream, params, MemorySegment.NULL));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuLaunchKernel", t);
        }
    }

    // ---- events ----------------------------------------------------------------------------------------

    static MemorySegment eventCreate(int flags) {
        return CALLS.addressOut("cuEventCreate", out -> (int) cuEventCreate.invokeExact(out, flags));
    }

    static void eventRecord(MemorySegment event, MemorySegment stream) {
        try { // hot: no lambda
            check("cuEventRecord", (int) cuEventRecord.invokeExact(event, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuEventRecord", t);
        }
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    static boolean eventQuery(MemorySegment event) {
        int rc;
        try {
            rc = (int) cuEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuEventQuery", t);
        }
        return CALLS.ready("cuEventQuery", rc);
    }

    static void eventSynchronize(MemorySegment event) {
        CALLS.run("cuEventSynchronize", () -> (int) cuEventSynchronize.invokeExact(event));
    }

    static void eventDestroy(MemorySegment event) {
        CALLS.run("cuEventDestroy_v2", () -> (int) cuEventDestroy.invokeExact(event));
    }

    // ---- stream capture and graphs ---------------------------------------------------------------------

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    static void streamBeginCapture(MemorySegment stream, int mode) {
        int rc = DriverCalls.raw("cuStreamBeginCapture_v2", () -> (int) cuStreamBeginCapture.invokeExact(stream, mode));
        if (rc != CUDA_SUCCESS) {
            throw ERRORS.toBeginCaptureException("cuStreamBeginCapture_v2", rc);
        }
    }

    /** {@code cuStreamEndCapture}; the raw code, because the caller must clean up whatever it returns. */
    static int tryStreamEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return DriverCalls.raw("cuStreamEndCapture", () -> (int) cuStreamEndCapture.invokeExact(stream, graphOut));
    }

    /** The stream's {@code CUstreamCaptureStatus}: NONE 0, ACTIVE 1, INVALIDATED 2. */
    static int streamCaptureStatus(MemorySegment stream) {
        return CALLS.intOut("cuStreamIsCapturing", out -> (int) cuStreamIsCapturing.invokeExact(stream, out));
    }

    /** The driver's id of the capture in progress on {@code stream} (for logs), or -1 when unknown. */
    static long captureId(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment id = arena.allocate(JAVA_LONG);
            MemorySegment none = MemorySegment.NULL;
            int rc;
            if (cuStreamGetCaptureInfoV3 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v3", () -> (int) cuStreamGetCaptureInfoV3.invokeExact(
                        stream, status, id, none, none, none, none));
            } else if (cuStreamGetCaptureInfoV2 != null) {
                rc = DriverCalls.raw("cuStreamGetCaptureInfo_v2", () -> (int) cuStreamGetCaptureInfoV2.invokeExact(
                        stream, status, id, none, none, none));
            } else {
                return -1;
            }
            return rc == CUDA_SUCCESS && status.get(JAVA_INT, 0) != CudaNative.CU_STREAM_CAPTURE_STATUS_NONE
                    ? id.get(JAVA_LONG, 0) : -1;
        }
    }

    /** The {@code CUgraphNodeType} of every node of {@code graph}, in the driver's order. */
    static int[] graphNodeTypes(MemorySegment graph) {
        return CALLS.graphNodeTypes(graph, "cuGraphGetNodes", cuGraphGetNodes, "cuGraphNodeGetType",
                cuGraphNodeGetType);
    }

    /** {@code cuGraphInstantiateWithFlags(graph, 0)}. */
    static MemorySegment graphInstantiate(MemorySegment graph) {
        return CALLS.addressOut("cuGraphInstantiateWithFlags",
                out -> (int) cuGraphInstantiateWithFlags.invokeExact(out, graph, 0L));
    }

    static void graphUpload(MemorySegment exec, MemorySegment stream) {
        CALLS.run("cuGraphUpload", () -> (int) cuGraphUpload.invokeExact(exec, stream));
    }

    static void graphLaunch(MemorySegment exec, MemorySegment stream) {
        try { // hot: no lambda
            check("cuGraphLaunch", (int) cuGraphLaunch.invokeExact(exec, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("cuGraphLaunch", t);
        }
    }

    static void graphExecDestroy(MemorySegment exec) {
        CALLS.run("cuGraphExecDestroy", () -> (int) cuGraphExecDestroy.invokeExact(exec));
    }

    static void graphDestroy(MemorySegment graph) {
        CALLS.run("cuGraphDestroy", () -> (int) cuGraphDestroy.invokeExact(graph));
    }

    /** Writes {@code graph} as Graphviz DOT to the file {@code path}. */
    static void graphDebugDotPrint(MemorySegment graph, String path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            CALLS.run("cuGraphDebugDotPrint", () -> (int) cuGraphDebugDotPrint.invokeExact(graph, cPath, flags));
        }
    }
}
