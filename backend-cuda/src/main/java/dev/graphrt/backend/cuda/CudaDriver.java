package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaNative.CUDA_ERROR_NOT_READY;
import static dev.graphrt.backend.cuda.CudaNative.CUDA_SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Typed Java wrappers over the CUDA driver API: one method per call, each checking the {@code CUresult}
 * and throwing GraphRT's exception for it ({@link #ERRORS}). Methods named {@code try...} return the raw
 * code instead, for probes and cleanup paths that must not throw.
 *
 * <p>Why {@code static final} handles in a holder: the JIT treats them as constants and inlines the
 * downcall, which keeps a launch within a few nanoseconds of C. The holder is initialised on the first
 * call, which the backend makes only after {@link CudaLibrary#failure()} was empty, so a machine without
 * a driver never fails in a class initialiser. Hot-path wrappers (launch, async copy, event record and
 * query, graph launch) allocate nothing.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class CudaDriver {
    private CudaDriver() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code cuGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(CudaDriver::resultName);

    /** The downcall handles; initialised on first use, after the library was found complete. */
    private static final class H {
        private static final Linker LINKER = Linker.nativeLinker();

        static final MethodHandle cuInit = bind(Symbol.cuInit);
        static final MethodHandle cuDriverGetVersion = bind(Symbol.cuDriverGetVersion);
        static final MethodHandle cuGetErrorName = bind(Symbol.cuGetErrorName);
        static final MethodHandle cuDeviceGetCount = bind(Symbol.cuDeviceGetCount);
        static final MethodHandle cuDeviceGet = bind(Symbol.cuDeviceGet);
        static final MethodHandle cuDeviceGetName = bind(Symbol.cuDeviceGetName);
        static final MethodHandle cuDeviceTotalMem = bind(Symbol.cuDeviceTotalMem_v2);
        static final MethodHandle cuDeviceGetAttribute = bind(Symbol.cuDeviceGetAttribute);
        static final MethodHandle cuDevicePrimaryCtxRetain = bind(Symbol.cuDevicePrimaryCtxRetain);
        static final MethodHandle cuDevicePrimaryCtxRelease = bind(Symbol.cuDevicePrimaryCtxRelease_v2);
        static final MethodHandle cuCtxSetCurrent = bind(Symbol.cuCtxSetCurrent);
        static final MethodHandle cuThreadExchangeStreamCaptureMode = bind(Symbol.cuThreadExchangeStreamCaptureMode);
        static final MethodHandle cuStreamCreate = bind(Symbol.cuStreamCreate);
        static final MethodHandle cuStreamDestroy = bind(Symbol.cuStreamDestroy_v2);
        static final MethodHandle cuStreamSynchronize = bind(Symbol.cuStreamSynchronize);
        static final MethodHandle cuStreamQuery = bind(Symbol.cuStreamQuery);
        static final MethodHandle cuMemAlloc = bind(Symbol.cuMemAlloc_v2);
        static final MethodHandle cuMemFree = bind(Symbol.cuMemFree_v2);
        static final MethodHandle cuMemAllocHost = bind(Symbol.cuMemAllocHost_v2);
        static final MethodHandle cuMemFreeHost = bind(Symbol.cuMemFreeHost);
        static final MethodHandle cuMemcpyHtoD = bind(Symbol.cuMemcpyHtoD_v2);
        static final MethodHandle cuMemcpyHtoDAsync = bind(Symbol.cuMemcpyHtoDAsync_v2);
        static final MethodHandle cuMemcpyDtoHAsync = bind(Symbol.cuMemcpyDtoHAsync_v2);
        static final MethodHandle cuModuleLoadDataEx = bind(Symbol.cuModuleLoadDataEx);
        static final MethodHandle cuModuleGetFunction = bind(Symbol.cuModuleGetFunction);
        static final MethodHandle cuModuleUnload = bind(Symbol.cuModuleUnload);
        static final MethodHandle cuFuncGetParamInfo = bind(Symbol.cuFuncGetParamInfo);
        static final MethodHandle cuFuncLoad = bind(Symbol.cuFuncLoad);
        static final MethodHandle cuLaunchKernel = bind(Symbol.cuLaunchKernel);
        static final MethodHandle cuEventCreate = bind(Symbol.cuEventCreate);
        static final MethodHandle cuEventRecord = bind(Symbol.cuEventRecord);
        static final MethodHandle cuEventQuery = bind(Symbol.cuEventQuery);
        static final MethodHandle cuEventSynchronize = bind(Symbol.cuEventSynchronize);
        static final MethodHandle cuEventDestroy = bind(Symbol.cuEventDestroy_v2);
        static final MethodHandle cuStreamBeginCapture = bind(Symbol.cuStreamBeginCapture_v2);
        static final MethodHandle cuStreamEndCapture = bind(Symbol.cuStreamEndCapture);
        static final MethodHandle cuStreamIsCapturing = bind(Symbol.cuStreamIsCapturing);
        static final MethodHandle cuStreamGetCaptureInfoV3 = bind(Symbol.cuStreamGetCaptureInfo_v3);
        static final MethodHandle cuStreamGetCaptureInfoV2 = bind(Symbol.cuStreamGetCaptureInfo_v2);
        static final MethodHandle cuGraphGetNodes = bind(Symbol.cuGraphGetNodes);
        static final MethodHandle cuGraphNodeGetType = bind(Symbol.cuGraphNodeGetType);
        static final MethodHandle cuGraphInstantiateWithFlags = bind(Symbol.cuGraphInstantiateWithFlags);
        static final MethodHandle cuGraphUpload = bind(Symbol.cuGraphUpload);
        static final MethodHandle cuGraphLaunch = bind(Symbol.cuGraphLaunch);
        static final MethodHandle cuGraphExecDestroy = bind(Symbol.cuGraphExecDestroy);
        static final MethodHandle cuGraphDestroy = bind(Symbol.cuGraphDestroy);
        static final MethodHandle cuGraphDebugDotPrint = bind(Symbol.cuGraphDebugDotPrint);

        private H() {
        }

        /** The handle, or null for an optional symbol the driver does not export. */
        private static MethodHandle bind(Symbol symbol) {
            Optional<MemorySegment> address = CudaLibrary.lookup().find(symbol.name());
            if (address.isEmpty()) {
                if (symbol.required) {
                    throw new IllegalStateException(CudaLibrary.NAME + " lacks " + symbol.name());
                }
                return null;
            }
            return LINKER.downcallHandle(address.get(), symbol.descriptor);
        }
    }

    // ---- errors --------------------------------------------------------------------------------------

    /** The driver's name for {@code code} ({@code cuGetErrorName}), or the table's when it has none. */
    static String resultName(int code) {
        if (CudaLibrary.failure().isEmpty()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int rc = (int) H.cuGetErrorName.invokeExact(code, out);
                MemorySegment text = out.get(ADDRESS, 0);
                if (rc == CUDA_SUCCESS && !text.equals(MemorySegment.NULL)) {
                    return text.reinterpret(256).getString(0);
                }
            } catch (Throwable ignored) {
                // fall through to the table: naming an error must never raise another one
            }
        }
        String name = CudaNative.RESULT_NAMES.get(code);
        return name != null ? name : CudaNative.UNKNOWN_RESULT_PREFIX + "(" + code + ")";
    }

    static void check(String call, int rc) {
        if (rc != CUDA_SUCCESS) {
            throw ERRORS.toException(call, rc);
        }
    }

    private static RuntimeException unexpected(String call, Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(call + " downcall failed", t);
    }

    // ---- initialisation and devices --------------------------------------------------------------------

    /** {@code cuInit(0)}; the raw code, because the probe reports a failure as a reason. */
    static int tryInit() {
        try {
            return (int) H.cuInit.invokeExact(0);
        } catch (Throwable t) {
            throw unexpected("cuInit", t);
        }
    }

    /** The driver's CUDA version, e.g. 13000 for 13.0. */
    static int driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.cuDriverGetVersion.invokeExact(out);
            } catch (Throwable t) {
                throw unexpected("cuDriverGetVersion", t);
            }
            check("cuDriverGetVersion", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    static int deviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.cuDeviceGetCount.invokeExact(out);
            } catch (Throwable t) {
                throw unexpected("cuDeviceGetCount", t);
            }
            check("cuDeviceGetCount", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    /** The {@code CUdevice} of ordinal {@code ordinal}. */
    static int device(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.cuDeviceGet.invokeExact(out, ordinal);
            } catch (Throwable t) {
                throw unexpected("cuDeviceGet", t);
            }
            check("cuDeviceGet", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    static String deviceName(int device) {
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 256;
            MemorySegment out = arena.allocate(capacity);
            int rc;
            try {
                rc = (int) H.cuDeviceGetName.invokeExact(out, capacity, device);
            } catch (Throwable t) {
                throw unexpected("cuDeviceGetName", t);
            }
            check("cuDeviceGetName", rc);
            out.set(JAVA_BYTE, capacity - 1, (byte) 0);
            return out.getString(0);
        }
    }

    static long deviceTotalMemory(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            int rc;
            try {
                rc = (int) H.cuDeviceTotalMem.invokeExact(out, device);
            } catch (Throwable t) {
                throw unexpected("cuDeviceTotalMem_v2", t);
            }
            check("cuDeviceTotalMem_v2", rc);
            return out.get(JAVA_LONG, 0);
        }
    }

    static int deviceAttribute(int attribute, int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.cuDeviceGetAttribute.invokeExact(out, attribute, device);
            } catch (Throwable t) {
                throw unexpected("cuDeviceGetAttribute", t);
            }
            check("cuDeviceGetAttribute(" + attribute + ")", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    // ---- contexts and capture mode ---------------------------------------------------------------------

    static MemorySegment primaryContextRetain(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.cuDevicePrimaryCtxRetain.invokeExact(out, device);
            } catch (Throwable t) {
                throw unexpected("cuDevicePrimaryCtxRetain", t);
            }
            check("cuDevicePrimaryCtxRetain", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void primaryContextRelease(int device) {
        int rc;
        try {
            rc = (int) H.cuDevicePrimaryCtxRelease.invokeExact(device);
        } catch (Throwable t) {
            throw unexpected("cuDevicePrimaryCtxRelease_v2", t);
        }
        check("cuDevicePrimaryCtxRelease_v2", rc);
    }

    /** Binds {@code context} to the calling thread; cheap when it already is. */
    static void contextSetCurrent(MemorySegment context) {
        int rc;
        try {
            rc = (int) H.cuCtxSetCurrent.invokeExact(context);
        } catch (Throwable t) {
            throw unexpected("cuCtxSetCurrent", t);
        }
        check("cuCtxSetCurrent", rc);
    }

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it.
     * A host allocation or module load made this way does not invalidate a GLOBAL or THREAD_LOCAL capture
     * in progress (the H200 probes: {@code cuMemAlloc_v2} under a relaxed exchange succeeds mid-capture).
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mode = arena.allocate(JAVA_INT);
            mode.set(JAVA_INT, 0, CudaNative.CU_STREAM_CAPTURE_MODE_RELAXED);
            exchangeCaptureMode(mode);
            T result;
            try {
                result = action.get();
            } catch (RuntimeException | Error primary) {
                try {
                    exchangeCaptureMode(mode); // mode now holds the previous one: swap it back
                } catch (RuntimeException restore) {
                    primary.addSuppressed(restore);
                }
                throw primary;
            }
            exchangeCaptureMode(mode);
            return result;
        }
    }

    private static void exchangeCaptureMode(MemorySegment mode) {
        int rc;
        try {
            rc = (int) H.cuThreadExchangeStreamCaptureMode.invokeExact(mode);
        } catch (Throwable t) {
            throw unexpected("cuThreadExchangeStreamCaptureMode", t);
        }
        check("cuThreadExchangeStreamCaptureMode", rc);
    }

    // ---- streams ---------------------------------------------------------------------------------------

    static MemorySegment streamCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.cuStreamCreate.invokeExact(out, flags);
            } catch (Throwable t) {
                throw unexpected("cuStreamCreate", t);
            }
            check("cuStreamCreate", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void streamDestroy(MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuStreamDestroy.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamDestroy_v2", t);
        }
        check("cuStreamDestroy_v2", rc);
    }

    static void streamSynchronize(MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuStreamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamSynchronize", t);
        }
        check("cuStreamSynchronize", rc);
    }

    /** {@code cuStreamQuery}: 0 idle, 600 busy, anything else an asynchronous error of earlier work. */
    static int tryStreamQuery(MemorySegment stream) {
        try {
            return (int) H.cuStreamQuery.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("cuStreamQuery", t);
        }
    }

    // ---- memory ----------------------------------------------------------------------------------------

    /** A device allocation of {@code bytes}; out-of-memory raises {@code DeviceOutOfMemoryException}. */
    static long memAlloc(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            int rc;
            try {
                rc = (int) H.cuMemAlloc.invokeExact(out, bytes);
            } catch (Throwable t) {
                throw unexpected("cuMemAlloc_v2", t);
            }
            if (rc != CUDA_SUCCESS) {
                throw ERRORS.toException("cuMemAlloc_v2", rc, bytes);
            }
            return out.get(JAVA_LONG, 0);
        }
    }

    static void memFree(long pointer) {
        int rc;
        try {
            rc = (int) H.cuMemFree.invokeExact(pointer);
        } catch (Throwable t) {
            throw unexpected("cuMemFree_v2", t);
        }
        check("cuMemFree_v2", rc);
    }

    /** Page-locked host memory of {@code bytes}, as a segment of that size (free with {@link #memFreeHost}). */
    static MemorySegment memAllocHost(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.cuMemAllocHost.invokeExact(out, bytes);
            } catch (Throwable t) {
                throw unexpected("cuMemAllocHost_v2", t);
            }
            if (rc != CUDA_SUCCESS) {
                throw ERRORS.toException("cuMemAllocHost_v2", rc, bytes);
            }
            return out.get(ADDRESS, 0).reinterpret(bytes);
        }
    }

    static void memFreeHost(MemorySegment pinned) {
        int rc;
        try {
            rc = (int) H.cuMemFreeHost.invokeExact(pinned);
        } catch (Throwable t) {
            throw unexpected("cuMemFreeHost", t);
        }
        check("cuMemFreeHost", rc);
    }

    /** Synchronous host-to-device copy; {@code src} must be a native segment. */
    static void memcpyHtoD(long dst, MemorySegment src, long bytes) {
        int rc;
        try {
            rc = (int) H.cuMemcpyHtoD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyHtoD_v2", t);
        }
        check("cuMemcpyHtoD_v2", rc);
    }

    /** Stream-ordered host-to-device copy; {@code src} must stay valid until the copy ran (pinned staging). */
    static void memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuMemcpyHtoDAsync.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyHtoDAsync_v2", t);
        }
        check("cuMemcpyHtoDAsync_v2", rc);
    }

    /** Stream-ordered device-to-host copy into pinned memory. */
    static void memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuMemcpyDtoHAsync.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw unexpected("cuMemcpyDtoHAsync_v2", t);
        }
        check("cuMemcpyDtoHAsync_v2", rc);
    }

    // ---- modules and launches --------------------------------------------------------------------------

    /** {@code cuModuleLoadDataEx}; the raw code, because the caller reports it with the JIT log. */
    static int tryModuleLoadDataEx(MemorySegment moduleOut, MemorySegment image, int optionCount,
                                   MemorySegment options, MemorySegment optionValues) {
        try {
            return (int) H.cuModuleLoadDataEx.invokeExact(moduleOut, image, optionCount, options, optionValues);
        } catch (Throwable t) {
            throw unexpected("cuModuleLoadDataEx", t);
        }
    }

    /** {@code cuModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        try {
            return (int) H.cuModuleGetFunction.invokeExact(functionOut, module, name);
        } catch (Throwable t) {
            throw unexpected("cuModuleGetFunction", t);
        }
    }

    static void moduleUnload(MemorySegment module) {
        int rc;
        try {
            rc = (int) H.cuModuleUnload.invokeExact(module);
        } catch (Throwable t) {
            throw unexpected("cuModuleUnload", t);
        }
        check("cuModuleUnload", rc);
    }

    /**
     * The byte sizes of {@code function}'s parameters in order, or empty when this driver cannot tell
     * ({@code cuFuncGetParamInfo} needs CUDA 12.4).
     */
    static Optional<long[]> functionParameterSizes(MemorySegment function) {
        if (H.cuFuncGetParamInfo == null) {
            return Optional.empty();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offset = arena.allocate(JAVA_LONG);
            MemorySegment size = arena.allocate(JAVA_LONG);
            long[] sizes = new long[16];
            int count = 0;
            for (long index = 0; index < 4096; index++) {
                int rc;
                try {
                    rc = (int) H.cuFuncGetParamInfo.invokeExact(function, index, offset, size);
                } catch (Throwable t) {
                    throw unexpected("cuFuncGetParamInfo", t);
                }
                if (rc == CudaNative.CUDA_ERROR_INVALID_VALUE) {
                    break; // index is past the last parameter
                }
                if (rc != CUDA_SUCCESS) {
                    return Optional.empty();
                }
                if (count == sizes.length) {
                    sizes = Arrays.copyOf(sizes, count * 2);
                }
                sizes[count++] = size.get(JAVA_LONG, 0);
            }
            return Optional.of(Arrays.copyOf(sizes, count));
        }
    }

    /**
     * Loads {@code function} now (CUDA 12.4+), so lazy loading never happens inside a capture. Returns the
     * raw code: a failure here is not fatal, the driver then loads the function at its first launch.
     */
    static int tryFunctionLoad(MemorySegment function) {
        if (H.cuFuncLoad == null) {
            return CUDA_SUCCESS;
        }
        try {
            return (int) H.cuFuncLoad.invokeExact(function);
        } catch (Throwable t) {
            throw unexpected("cuFuncLoad", t);
        }
    }

    /** Launches {@code function} on {@code stream} with {@code params} ({@code void**}), no shared memory. */
    static void launchKernel(MemorySegment function, int gridX, int gridY, int gridZ,
                             int blockX, int blockY, int blockZ, MemorySegment stream, MemorySegment params) {
        int rc;
        try {
            rc = (int) H.cuLaunchKernel.invokeExact(function, gridX, gridY, gridZ, blockX, blockY, blockZ, 0,
                    stream, params, MemorySegment.NULL);
        } catch (Throwable t) {
            throw unexpected("cuLaunchKernel", t);
        }
        check("cuLaunchKernel", rc);
    }

    // ---- events ----------------------------------------------------------------------------------------

    static MemorySegment eventCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.cuEventCreate.invokeExact(out, flags);
            } catch (Throwable t) {
                throw unexpected("cuEventCreate", t);
            }
            check("cuEventCreate", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void eventRecord(MemorySegment event, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuEventRecord.invokeExact(event, stream);
        } catch (Throwable t) {
            throw unexpected("cuEventRecord", t);
        }
        check("cuEventRecord", rc);
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    static boolean eventQuery(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.cuEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventQuery", t);
        }
        if (rc == CUDA_SUCCESS) {
            return true;
        }
        if (rc == CUDA_ERROR_NOT_READY) {
            return false;
        }
        throw ERRORS.toException("cuEventQuery", rc);
    }

    static void eventSynchronize(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.cuEventSynchronize.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventSynchronize", t);
        }
        check("cuEventSynchronize", rc);
    }

    static void eventDestroy(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.cuEventDestroy.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("cuEventDestroy_v2", t);
        }
        check("cuEventDestroy_v2", rc);
    }

    // ---- stream capture --------------------------------------------------------------------------------

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    static void streamBeginCapture(MemorySegment stream, int mode) {
        int rc;
        try {
            rc = (int) H.cuStreamBeginCapture.invokeExact(stream, mode);
        } catch (Throwable t) {
            throw unexpected("cuStreamBeginCapture_v2", t);
        }
        if (rc != CUDA_SUCCESS) {
            throw ERRORS.toBeginCaptureException("cuStreamBeginCapture_v2", rc);
        }
    }

    /** {@code cuStreamEndCapture}; the raw code, because the caller must clean up whatever it returns. */
    static int tryStreamEndCapture(MemorySegment stream, MemorySegment graphOut) {
        try {
            return (int) H.cuStreamEndCapture.invokeExact(stream, graphOut);
        } catch (Throwable t) {
            throw unexpected("cuStreamEndCapture", t);
        }
    }

    /** The stream's {@code CUstreamCaptureStatus}: NONE 0, ACTIVE 1, INVALIDATED 2. */
    static int streamCaptureStatus(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.cuStreamIsCapturing.invokeExact(stream, out);
            } catch (Throwable t) {
                throw unexpected("cuStreamIsCapturing", t);
            }
            check("cuStreamIsCapturing", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    /** The driver's id of the capture in progress on {@code stream} (for logs), or -1 when unknown. */
    static long captureId(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment id = arena.allocate(JAVA_LONG);
            MemorySegment none = MemorySegment.NULL;
            int rc;
            try {
                if (H.cuStreamGetCaptureInfoV3 != null) {
                    rc = (int) H.cuStreamGetCaptureInfoV3.invokeExact(stream, status, id, none, none, none, none);
                } else if (H.cuStreamGetCaptureInfoV2 != null) {
                    rc = (int) H.cuStreamGetCaptureInfoV2.invokeExact(stream, status, id, none, none, none);
                } else {
                    return -1;
                }
            } catch (Throwable t) {
                throw unexpected("cuStreamGetCaptureInfo", t);
            }
            return rc == CUDA_SUCCESS && status.get(JAVA_INT, 0) != CudaNative.CU_STREAM_CAPTURE_STATUS_NONE
                    ? id.get(JAVA_LONG, 0) : -1;
        }
    }

    // ---- graphs ----------------------------------------------------------------------------------------

    /** The {@code CUgraphNodeType} of every node of {@code graph}, in the driver's order. */
    static int[] graphNodeTypes(MemorySegment graph) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_LONG);
            count.set(JAVA_LONG, 0, 0L);
            int rc;
            try {
                rc = (int) H.cuGraphGetNodes.invokeExact(graph, MemorySegment.NULL, count);
            } catch (Throwable t) {
                throw unexpected("cuGraphGetNodes", t);
            }
            check("cuGraphGetNodes", rc);
            long n = count.get(JAVA_LONG, 0);
            if (n == 0) {
                return new int[0];
            }
            if (n > Integer.MAX_VALUE / 8) {
                throw new IllegalStateException("graph reports " + n + " nodes");
            }
            MemorySegment nodes = arena.allocate(ADDRESS, n);
            try {
                rc = (int) H.cuGraphGetNodes.invokeExact(graph, nodes, count);
            } catch (Throwable t) {
                throw unexpected("cuGraphGetNodes", t);
            }
            check("cuGraphGetNodes", rc);
            int filled = (int) Math.min(n, count.get(JAVA_LONG, 0));
            int[] types = new int[filled];
            MemorySegment type = arena.allocate(JAVA_INT);
            for (int i = 0; i < filled; i++) {
                MemorySegment node = nodes.getAtIndex(ADDRESS, i);
                try {
                    rc = (int) H.cuGraphNodeGetType.invokeExact(node, type);
                } catch (Throwable t) {
                    throw unexpected("cuGraphNodeGetType", t);
                }
                check("cuGraphNodeGetType", rc);
                types[i] = type.get(JAVA_INT, 0);
            }
            return types;
        }
    }

    /** {@code cuGraphInstantiateWithFlags(graph, 0)}. */
    static MemorySegment graphInstantiate(MemorySegment graph) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.cuGraphInstantiateWithFlags.invokeExact(out, graph, 0L);
            } catch (Throwable t) {
                throw unexpected("cuGraphInstantiateWithFlags", t);
            }
            check("cuGraphInstantiateWithFlags", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void graphUpload(MemorySegment exec, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuGraphUpload.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw unexpected("cuGraphUpload", t);
        }
        check("cuGraphUpload", rc);
    }

    static void graphLaunch(MemorySegment exec, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.cuGraphLaunch.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw unexpected("cuGraphLaunch", t);
        }
        check("cuGraphLaunch", rc);
    }

    static void graphExecDestroy(MemorySegment exec) {
        int rc;
        try {
            rc = (int) H.cuGraphExecDestroy.invokeExact(exec);
        } catch (Throwable t) {
            throw unexpected("cuGraphExecDestroy", t);
        }
        check("cuGraphExecDestroy", rc);
    }

    static void graphDestroy(MemorySegment graph) {
        int rc;
        try {
            rc = (int) H.cuGraphDestroy.invokeExact(graph);
        } catch (Throwable t) {
            throw unexpected("cuGraphDestroy", t);
        }
        check("cuGraphDestroy", rc);
    }

    /** Writes {@code graph} as Graphviz DOT to the file {@code path}. */
    static void graphDebugDotPrint(MemorySegment graph, String path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            int rc;
            try {
                rc = (int) H.cuGraphDebugDotPrint.invokeExact(graph, cPath, flags);
            } catch (Throwable t) {
                throw unexpected("cuGraphDebugDotPrint", t);
            }
            check("cuGraphDebugDotPrint", rc);
        }
    }
}
