package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipNative.HIP_ERROR_NOT_READY;
import static dev.graphrt.backend.hip.HipNative.HIP_SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.backend.hip.HipNative.Symbol;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Typed Java wrappers over the HIP runtime API: one method per call, each checking the {@code hipError_t}
 * and throwing GraphRT's exception for it ({@link #ERRORS}, the mapping shared with the cuda backend). Methods
 * named {@code try...} return the raw code instead, for probes and cleanup paths that must not throw.
 *
 * <p>Why {@code static final} handles in a holder: the JIT treats them as constants and inlines the downcall.
 * The holder is initialised on the first call, which the backend makes only after {@link HipLibrary#failure()}
 * was empty, so a machine without HIP never fails in a class initialiser. Optional symbols
 * ({@code hipGraphUpload}, {@code hipGraphDebugDotPrint}) are bound only when the library exports them; ask
 * {@link #hasGraphUpload()} and {@link #hasGraphDebugDotPrint()} first.
 *
 * <p>Device pointers are {@code void*} in HIP; this class takes and returns them as {@code long} addresses and
 * wraps them in {@link MemorySegment#ofAddress} (a zero-length segment the JIT does not allocate) for the call.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class HipRuntime {
    private HipRuntime() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code hipGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(HipRuntime::resultName);

    /** The downcall handles; initialised on first use, after the library was found complete. */
    private static final class H {
        private static final Linker LINKER = Linker.nativeLinker();

        static final MethodHandle hipInit = bind(Symbol.hipInit);
        static final MethodHandle hipDriverGetVersion = bind(Symbol.hipDriverGetVersion);
        static final MethodHandle hipRuntimeGetVersion = bind(Symbol.hipRuntimeGetVersion);
        static final MethodHandle hipGetErrorName = bind(Symbol.hipGetErrorName);
        static final MethodHandle hipGetDeviceCount = bind(Symbol.hipGetDeviceCount);
        static final MethodHandle hipSetDevice = bind(Symbol.hipSetDevice);
        static final MethodHandle hipDeviceGetName = bind(Symbol.hipDeviceGetName);
        static final MethodHandle hipDeviceTotalMem = bind(Symbol.hipDeviceTotalMem);
        static final MethodHandle hipDeviceGetAttribute = bind(Symbol.hipDeviceGetAttribute);
        static final MethodHandle hipThreadExchangeStreamCaptureMode = bind(Symbol.hipThreadExchangeStreamCaptureMode);
        static final MethodHandle hipStreamCreateWithFlags = bind(Symbol.hipStreamCreateWithFlags);
        static final MethodHandle hipStreamDestroy = bind(Symbol.hipStreamDestroy);
        static final MethodHandle hipStreamSynchronize = bind(Symbol.hipStreamSynchronize);
        static final MethodHandle hipStreamQuery = bind(Symbol.hipStreamQuery);
        static final MethodHandle hipMalloc = bind(Symbol.hipMalloc);
        static final MethodHandle hipFree = bind(Symbol.hipFree);
        static final MethodHandle hipHostMalloc = bind(Symbol.hipHostMalloc);
        static final MethodHandle hipHostFree = bind(Symbol.hipHostFree);
        static final MethodHandle hipMemcpyHtoD = bind(Symbol.hipMemcpyHtoD);
        static final MethodHandle hipMemcpyHtoDAsync = bind(Symbol.hipMemcpyHtoDAsync);
        static final MethodHandle hipMemcpyDtoHAsync = bind(Symbol.hipMemcpyDtoHAsync);
        static final MethodHandle hipModuleLoadData = bind(Symbol.hipModuleLoadData);
        static final MethodHandle hipModuleGetFunction = bind(Symbol.hipModuleGetFunction);
        static final MethodHandle hipModuleUnload = bind(Symbol.hipModuleUnload);
        static final MethodHandle hipModuleLaunchKernel = bind(Symbol.hipModuleLaunchKernel);
        static final MethodHandle hipEventCreateWithFlags = bind(Symbol.hipEventCreateWithFlags);
        static final MethodHandle hipEventRecord = bind(Symbol.hipEventRecord);
        static final MethodHandle hipEventQuery = bind(Symbol.hipEventQuery);
        static final MethodHandle hipEventSynchronize = bind(Symbol.hipEventSynchronize);
        static final MethodHandle hipEventDestroy = bind(Symbol.hipEventDestroy);
        static final MethodHandle hipStreamBeginCapture = bind(Symbol.hipStreamBeginCapture);
        static final MethodHandle hipStreamEndCapture = bind(Symbol.hipStreamEndCapture);
        static final MethodHandle hipStreamIsCapturing = bind(Symbol.hipStreamIsCapturing);
        static final MethodHandle hipGraphGetNodes = bind(Symbol.hipGraphGetNodes);
        static final MethodHandle hipGraphNodeGetType = bind(Symbol.hipGraphNodeGetType);
        static final MethodHandle hipGraphInstantiateWithFlags = bind(Symbol.hipGraphInstantiateWithFlags);
        static final MethodHandle hipGraphUpload = bind(Symbol.hipGraphUpload);
        static final MethodHandle hipGraphLaunch = bind(Symbol.hipGraphLaunch);
        static final MethodHandle hipGraphExecDestroy = bind(Symbol.hipGraphExecDestroy);
        static final MethodHandle hipGraphDestroy = bind(Symbol.hipGraphDestroy);
        static final MethodHandle hipGraphDebugDotPrint = bind(Symbol.hipGraphDebugDotPrint);

        private H() {
        }

        /** The handle, or null for an optional symbol the library does not export ({@code SymbolLookup.find}). */
        private static MethodHandle bind(Symbol symbol) {
            Optional<MemorySegment> address = HipLibrary.lookup().find(symbol.name());
            if (address.isEmpty()) {
                if (symbol.required) {
                    throw new IllegalStateException(HipLibrary.origin() + " lacks " + symbol.name());
                }
                return null;
            }
            return LINKER.downcallHandle(address.get(), symbol.descriptor);
        }
    }

    // ---- errors --------------------------------------------------------------------------------------

    /** The library's name for {@code code} ({@code hipGetErrorName}), or the table's when it has none. */
    static String resultName(int code) {
        String known = HipNative.RESULT_NAMES.get(code);
        if (HipLibrary.failure().isEmpty()) {
            try {
                MemorySegment text = (MemorySegment) H.hipGetErrorName.invokeExact(code);
                if (!text.equals(MemorySegment.NULL)) {
                    String name = text.reinterpret(256).getString(0);
                    // AMD's runtime answers "hipErrorUnknown" for codes it does not know: the table knows more
                    if (!name.isBlank() && (known == null || !name.equals("hipErrorUnknown"))) {
                        return name;
                    }
                }
            } catch (Throwable ignored) {
                // fall through to the table: naming an error must never raise another one
            }
        }
        return known != null ? known : HipNative.UNKNOWN_RESULT_PREFIX + "(" + code + ")";
    }

    static void check(String call, int rc) {
        if (rc != HIP_SUCCESS) {
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

    // ---- optional symbols ------------------------------------------------------------------------------

    /** Whether the library exports {@code hipGraphUpload} (ROCm 5.3+; not Debian's 5.2). */
    static boolean hasGraphUpload() {
        return H.hipGraphUpload != null;
    }

    /** Whether the library exports {@code hipGraphDebugDotPrint} (ROCm 5.5+). */
    static boolean hasGraphDebugDotPrint() {
        return H.hipGraphDebugDotPrint != null;
    }

    // ---- initialisation and devices --------------------------------------------------------------------

    /** {@code hipInit(0)}; the raw code, because the probe reports a failure as a reason. */
    static int tryInit() {
        try {
            return (int) H.hipInit.invokeExact(0);
        } catch (Throwable t) {
            throw unexpected("hipInit", t);
        }
    }

    /** What {@code hipGetDeviceCount} returned: its code and, when that is 0, the count. */
    record DeviceCount(int result, int count) {
    }

    /** {@code hipGetDeviceCount}; the raw code, because "no device" is the probe's answer, not an error. */
    static DeviceCount tryDeviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            out.set(JAVA_INT, 0, 0);
            int rc;
            try {
                rc = (int) H.hipGetDeviceCount.invokeExact(out);
            } catch (Throwable t) {
                throw unexpected("hipGetDeviceCount", t);
            }
            return new DeviceCount(rc, rc == HIP_SUCCESS ? out.get(JAVA_INT, 0) : 0);
        }
    }

    static int deviceCount() {
        DeviceCount count = tryDeviceCount();
        check("hipGetDeviceCount", count.result());
        return count.count();
    }

    /** {@code HIP_VERSION} of the runtime, e.g. 50221153 for 5.2.21153. */
    static int runtimeVersion() {
        return intOut("hipRuntimeGetVersion", H.hipRuntimeGetVersion);
    }

    /** The driver version the runtime reports (on ROCm the same as {@link #runtimeVersion()}). */
    static int driverVersion() {
        return intOut("hipDriverGetVersion", H.hipDriverGetVersion);
    }

    /** Makes device {@code ordinal} the calling thread's current device. */
    static void setDevice(int ordinal) {
        int rc;
        try {
            rc = (int) H.hipSetDevice.invokeExact(ordinal);
        } catch (Throwable t) {
            throw unexpected("hipSetDevice", t);
        }
        check("hipSetDevice", rc);
    }

    static String deviceName(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 256;
            MemorySegment out = arena.allocate(capacity);
            int rc;
            try {
                rc = (int) H.hipDeviceGetName.invokeExact(out, capacity, ordinal);
            } catch (Throwable t) {
                throw unexpected("hipDeviceGetName", t);
            }
            check("hipDeviceGetName", rc);
            out.set(JAVA_BYTE, capacity - 1, (byte) 0);
            return out.getString(0);
        }
    }

    static long deviceTotalMemory(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            int rc;
            try {
                rc = (int) H.hipDeviceTotalMem.invokeExact(out, ordinal);
            } catch (Throwable t) {
                throw unexpected("hipDeviceTotalMem", t);
            }
            check("hipDeviceTotalMem", rc);
            return out.get(JAVA_LONG, 0);
        }
    }

    static int deviceAttribute(int attribute, int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.hipDeviceGetAttribute.invokeExact(out, attribute, ordinal);
            } catch (Throwable t) {
                throw unexpected("hipDeviceGetAttribute", t);
            }
            check("hipDeviceGetAttribute(" + attribute + ")", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    private static int intOut(String call, MethodHandle handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) handle.invokeExact(out);
            } catch (Throwable t) {
                throw unexpected(call, t);
            }
            check(call, rc);
            return out.get(JAVA_INT, 0);
        }
    }

    // ---- capture mode ----------------------------------------------------------------------------------

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it, so a
     * host allocation, module load or synchronous copy made this way does not invalidate a GLOBAL or
     * THREAD_LOCAL capture in progress.
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mode = arena.allocate(JAVA_INT);
            mode.set(JAVA_INT, 0, HipNative.HIP_STREAM_CAPTURE_MODE_RELAXED);
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
            rc = (int) H.hipThreadExchangeStreamCaptureMode.invokeExact(mode);
        } catch (Throwable t) {
            throw unexpected("hipThreadExchangeStreamCaptureMode", t);
        }
        check("hipThreadExchangeStreamCaptureMode", rc);
    }

    // ---- streams ---------------------------------------------------------------------------------------

    static MemorySegment streamCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.hipStreamCreateWithFlags.invokeExact(out, flags);
            } catch (Throwable t) {
                throw unexpected("hipStreamCreateWithFlags", t);
            }
            check("hipStreamCreateWithFlags", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void streamDestroy(MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipStreamDestroy.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("hipStreamDestroy", t);
        }
        check("hipStreamDestroy", rc);
    }

    static void streamSynchronize(MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipStreamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("hipStreamSynchronize", t);
        }
        check("hipStreamSynchronize", rc);
    }

    /** {@code hipStreamQuery}: 0 idle, 600 busy, anything else an asynchronous error of earlier work. */
    static int tryStreamQuery(MemorySegment stream) {
        try {
            return (int) H.hipStreamQuery.invokeExact(stream);
        } catch (Throwable t) {
            throw unexpected("hipStreamQuery", t);
        }
    }

    // ---- memory ----------------------------------------------------------------------------------------

    /** A device allocation of {@code bytes}; out-of-memory raises {@code DeviceOutOfMemoryException}. */
    static long malloc(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.hipMalloc.invokeExact(out, bytes);
            } catch (Throwable t) {
                throw unexpected("hipMalloc", t);
            }
            if (rc != HIP_SUCCESS) {
                throw ERRORS.toException("hipMalloc", rc, bytes);
            }
            return out.get(ADDRESS, 0).address();
        }
    }

    static void free(long pointer) {
        int rc;
        try {
            rc = (int) H.hipFree.invokeExact(MemorySegment.ofAddress(pointer));
        } catch (Throwable t) {
            throw unexpected("hipFree", t);
        }
        check("hipFree", rc);
    }

    /** Page-locked host memory of {@code bytes}, as a segment of that size (free with {@link #hostFree}). */
    static MemorySegment hostMalloc(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.hipHostMalloc.invokeExact(out, bytes, HipNative.HIP_HOST_MALLOC_DEFAULT);
            } catch (Throwable t) {
                throw unexpected("hipHostMalloc", t);
            }
            if (rc != HIP_SUCCESS) {
                throw ERRORS.toException("hipHostMalloc", rc, bytes);
            }
            return out.get(ADDRESS, 0).reinterpret(bytes);
        }
    }

    static void hostFree(MemorySegment pinned) {
        int rc;
        try {
            rc = (int) H.hipHostFree.invokeExact(pinned);
        } catch (Throwable t) {
            throw unexpected("hipHostFree", t);
        }
        check("hipHostFree", rc);
    }

    /** Synchronous host-to-device copy; {@code src} must be a native segment. */
    static void memcpyHtoD(long dst, MemorySegment src, long bytes) {
        int rc;
        try {
            rc = (int) H.hipMemcpyHtoD.invokeExact(MemorySegment.ofAddress(dst), src, bytes);
        } catch (Throwable t) {
            throw unexpected("hipMemcpyHtoD", t);
        }
        check("hipMemcpyHtoD", rc);
    }

    /** Stream-ordered host-to-device copy; {@code src} must stay valid until the copy ran (pinned staging). */
    static void memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipMemcpyHtoDAsync.invokeExact(MemorySegment.ofAddress(dst), src, bytes, stream);
        } catch (Throwable t) {
            throw unexpected("hipMemcpyHtoDAsync", t);
        }
        check("hipMemcpyHtoDAsync", rc);
    }

    /** Stream-ordered device-to-host copy into pinned memory. */
    static void memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipMemcpyDtoHAsync.invokeExact(dst, MemorySegment.ofAddress(src), bytes, stream);
        } catch (Throwable t) {
            throw unexpected("hipMemcpyDtoHAsync", t);
        }
        check("hipMemcpyDtoHAsync", rc);
    }

    // ---- modules and launches --------------------------------------------------------------------------

    /** {@code hipModuleLoadData}; the raw code, because the compiler reports a failure with the kernel's name. */
    static int tryModuleLoadData(MemorySegment moduleOut, MemorySegment image) {
        try {
            return (int) H.hipModuleLoadData.invokeExact(moduleOut, image);
        } catch (Throwable t) {
            throw unexpected("hipModuleLoadData", t);
        }
    }

    /** {@code hipModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        try {
            return (int) H.hipModuleGetFunction.invokeExact(functionOut, module, name);
        } catch (Throwable t) {
            throw unexpected("hipModuleGetFunction", t);
        }
    }

    static void moduleUnload(MemorySegment module) {
        int rc;
        try {
            rc = (int) H.hipModuleUnload.invokeExact(module);
        } catch (Throwable t) {
            throw unexpected("hipModuleUnload", t);
        }
        check("hipModuleUnload", rc);
    }

    /** Launches {@code function} on {@code stream} with {@code params} ({@code void**}), no shared memory. */
    static void launchKernel(MemorySegment function, int gridX, int gridY, int gridZ,
                             int blockX, int blockY, int blockZ, MemorySegment stream, MemorySegment params) {
        int rc;
        try {
            rc = (int) H.hipModuleLaunchKernel.invokeExact(function, gridX, gridY, gridZ, blockX, blockY, blockZ, 0,
                    stream, params, MemorySegment.NULL);
        } catch (Throwable t) {
            throw unexpected("hipModuleLaunchKernel", t);
        }
        check("hipModuleLaunchKernel", rc);
    }

    // ---- events ----------------------------------------------------------------------------------------

    static MemorySegment eventCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.hipEventCreateWithFlags.invokeExact(out, flags);
            } catch (Throwable t) {
                throw unexpected("hipEventCreateWithFlags", t);
            }
            check("hipEventCreateWithFlags", rc);
            return out.get(ADDRESS, 0);
        }
    }

    static void eventRecord(MemorySegment event, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipEventRecord.invokeExact(event, stream);
        } catch (Throwable t) {
            throw unexpected("hipEventRecord", t);
        }
        check("hipEventRecord", rc);
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    static boolean eventQuery(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.hipEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("hipEventQuery", t);
        }
        if (rc == HIP_SUCCESS) {
            return true;
        }
        if (rc == HIP_ERROR_NOT_READY) {
            return false;
        }
        throw ERRORS.toException("hipEventQuery", rc);
    }

    static void eventSynchronize(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.hipEventSynchronize.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("hipEventSynchronize", t);
        }
        check("hipEventSynchronize", rc);
    }

    static void eventDestroy(MemorySegment event) {
        int rc;
        try {
            rc = (int) H.hipEventDestroy.invokeExact(event);
        } catch (Throwable t) {
            throw unexpected("hipEventDestroy", t);
        }
        check("hipEventDestroy", rc);
    }

    // ---- stream capture --------------------------------------------------------------------------------

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    static void streamBeginCapture(MemorySegment stream, int mode) {
        int rc;
        try {
            rc = (int) H.hipStreamBeginCapture.invokeExact(stream, mode);
        } catch (Throwable t) {
            throw unexpected("hipStreamBeginCapture", t);
        }
        if (rc != HIP_SUCCESS) {
            throw ERRORS.toBeginCaptureException("hipStreamBeginCapture", rc);
        }
    }

    /** {@code hipStreamEndCapture}; the raw code, because the caller must clean up whatever it returns. */
    static int tryStreamEndCapture(MemorySegment stream, MemorySegment graphOut) {
        try {
            return (int) H.hipStreamEndCapture.invokeExact(stream, graphOut);
        } catch (Throwable t) {
            throw unexpected("hipStreamEndCapture", t);
        }
    }

    /** The stream's {@code hipStreamCaptureStatus}: NONE 0, ACTIVE 1, INVALIDATED 2. */
    static int streamCaptureStatus(MemorySegment stream) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) H.hipStreamIsCapturing.invokeExact(stream, out);
            } catch (Throwable t) {
                throw unexpected("hipStreamIsCapturing", t);
            }
            check("hipStreamIsCapturing", rc);
            return out.get(JAVA_INT, 0);
        }
    }

    // ---- graphs ----------------------------------------------------------------------------------------

    /** The {@code hipGraphNodeType} of every node of {@code graph}, in the runtime's order. */
    static int[] graphNodeTypes(MemorySegment graph) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_LONG);
            count.set(JAVA_LONG, 0, 0L);
            int rc;
            try {
                rc = (int) H.hipGraphGetNodes.invokeExact(graph, MemorySegment.NULL, count);
            } catch (Throwable t) {
                throw unexpected("hipGraphGetNodes", t);
            }
            check("hipGraphGetNodes", rc);
            long n = count.get(JAVA_LONG, 0);
            if (n == 0) {
                return new int[0];
            }
            if (n > Integer.MAX_VALUE / 8) {
                throw new IllegalStateException("graph reports " + n + " nodes");
            }
            MemorySegment nodes = arena.allocate(ADDRESS, n);
            try {
                rc = (int) H.hipGraphGetNodes.invokeExact(graph, nodes, count);
            } catch (Throwable t) {
                throw unexpected("hipGraphGetNodes", t);
            }
            check("hipGraphGetNodes", rc);
            int filled = (int) Math.min(n, count.get(JAVA_LONG, 0));
            int[] types = new int[filled];
            MemorySegment type = arena.allocate(JAVA_INT);
            for (int i = 0; i < filled; i++) {
                MemorySegment node = nodes.getAtIndex(ADDRESS, i);
                try {
                    rc = (int) H.hipGraphNodeGetType.invokeExact(node, type);
                } catch (Throwable t) {
                    throw unexpected("hipGraphNodeGetType", t);
                }
                check("hipGraphNodeGetType", rc);
                types[i] = type.get(JAVA_INT, 0);
            }
            return types;
        }
    }

    /** {@code hipGraphInstantiateWithFlags(graph, 0)}. */
    static MemorySegment graphInstantiate(MemorySegment graph) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) H.hipGraphInstantiateWithFlags.invokeExact(out, graph, HipNative.HIP_GRAPH_INSTANTIATE_FLAGS);
            } catch (Throwable t) {
                throw unexpected("hipGraphInstantiateWithFlags", t);
            }
            check("hipGraphInstantiateWithFlags", rc);
            return out.get(ADDRESS, 0);
        }
    }

    /** {@code hipGraphUpload}; only call when {@link #hasGraphUpload()}. */
    static void graphUpload(MemorySegment exec, MemorySegment stream) {
        MethodHandle upload = H.hipGraphUpload;
        if (upload == null) {
            throw new IllegalStateException(HipLibrary.origin() + " has no hipGraphUpload");
        }
        int rc;
        try {
            rc = (int) upload.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw unexpected("hipGraphUpload", t);
        }
        check("hipGraphUpload", rc);
    }

    static void graphLaunch(MemorySegment exec, MemorySegment stream) {
        int rc;
        try {
            rc = (int) H.hipGraphLaunch.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw unexpected("hipGraphLaunch", t);
        }
        check("hipGraphLaunch", rc);
    }

    static void graphExecDestroy(MemorySegment exec) {
        int rc;
        try {
            rc = (int) H.hipGraphExecDestroy.invokeExact(exec);
        } catch (Throwable t) {
            throw unexpected("hipGraphExecDestroy", t);
        }
        check("hipGraphExecDestroy", rc);
    }

    static void graphDestroy(MemorySegment graph) {
        int rc;
        try {
            rc = (int) H.hipGraphDestroy.invokeExact(graph);
        } catch (Throwable t) {
            throw unexpected("hipGraphDestroy", t);
        }
        check("hipGraphDestroy", rc);
    }

    /** Writes {@code graph} as Graphviz DOT to the file {@code path}; only call when {@link #hasGraphDebugDotPrint()}. */
    static void graphDebugDotPrint(MemorySegment graph, String path, int flags) {
        MethodHandle print = H.hipGraphDebugDotPrint;
        if (print == null) {
            throw new IllegalStateException(HipLibrary.origin() + " has no hipGraphDebugDotPrint");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            int rc;
            try {
                rc = (int) print.invokeExact(graph, cPath, flags);
            } catch (Throwable t) {
                throw unexpected("hipGraphDebugDotPrint", t);
            }
            check("hipGraphDebugDotPrint", rc);
        }
    }
}
