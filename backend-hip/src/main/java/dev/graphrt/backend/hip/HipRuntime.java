package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.*;
import static dev.graphrt.backend.hip.HipNative.HIP_SUCCESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The HIP runtime API in two layers: raw {@code static final} downcall handles ({@link HipHandles}, bound from
 * {@link HipNative.Symbol} by the shared binder) and typed methods over them that check the {@code hipError_t}
 * and throw GraphRT's exception for it ({@link #ERRORS}, the mapping shared with the cuda backend, through
 * {@link DriverCalls}). Methods named {@code try...} return the raw code instead, for probes and cleanup paths
 * that must not throw.
 *
 * <p>Hot paths (launch, async copy, event record and query, graph launch, set device) are hand-written
 * {@code invokeExact} calls that allocate nothing. Optional symbols ({@code hipGraphUpload},
 * {@code hipGraphDebugDotPrint}) are bound only when the library exports them: ask {@link #hasGraphUpload()} and
 * {@link #hasGraphDebugDotPrint()} first. Device pointers are {@code void*} in HIP; this class takes them as
 * {@code long} addresses and wraps them in {@link MemorySegment#ofAddress} (which the JIT does not allocate).
 */
final class HipRuntime {
    private HipRuntime() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code hipGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(HipRuntime::resultName);
    private static final DriverCalls CALLS = new DriverCalls(ERRORS);

    /** The library's name for {@code code} ({@code hipGetErrorName}), or the table's when it has none. */
    static String resultName(int code) {
        String known = HipNative.RESULT_NAMES.get(code);
        if (HipLibrary.failure().isEmpty()) {
            try {
                String name = DriverCalls.cString((MemorySegment) hipGetErrorName.invokeExact(code));
                // AMD's runtime answers "hipErrorUnknown" for codes it does not know: the table knows more
                if (name != null && !name.isBlank() && (known == null || !name.equals("hipErrorUnknown"))) {
                    return name;
                }
            } catch (Throwable ignored) {
                // fall through to the table: naming an error must never raise another one
            }
        }
        return known != null ? known : HipNative.UNKNOWN_RESULT_PREFIX + "(" + code + ")";
    }

    static void check(String call, int rc) {
        CALLS.check(call, rc);
    }

    /** Whether the library exports {@code hipGraphUpload} (ROCm 5.3+; not Debian's 5.2). */
    static boolean hasGraphUpload() {
        return hipGraphUpload != null;
    }

    /** Whether the library exports {@code hipGraphDebugDotPrint} (ROCm 5.5+). */
    static boolean hasGraphDebugDotPrint() {
        return hipGraphDebugDotPrint != null;
    }

    // ---- initialisation and devices --------------------------------------------------------------------

    /** {@code hipInit(0)}; the raw code, because the probe reports a failure as a reason. */
    static int tryInit() {
        return DriverCalls.raw("hipInit", () -> (int) hipInit.invokeExact(0));
    }

    /** What {@code hipGetDeviceCount} returned: its code and, when that is 0, the count. */
    record DeviceCount(int result, int count) {
    }

    /** {@code hipGetDeviceCount}; the raw code, because "no device" is the probe's answer, not an error. */
    static DeviceCount tryDeviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            out.set(JAVA_INT, 0, 0);
            int rc = DriverCalls.raw("hipGetDeviceCount", () -> (int) hipGetDeviceCount.invokeExact(out));
            return new DeviceCount(rc, rc == HIP_SUCCESS ? out.get(JAVA_INT, 0) : 0);
        }
    }

    /** {@code HIP_VERSION} of the runtime, e.g. 50221153 for 5.2.21153. */
    static int runtimeVersion() {
        return CALLS.intOut("hipRuntimeGetVersion", out -> (int) hipRuntimeGetVersion.invokeExact(out));
    }

    /** The driver version the runtime reports (on ROCm the same as {@link #runtimeVersion()}). */
    static int driverVersion() {
        return CALLS.intOut("hipDriverGetVersion", out -> (int) hipDriverGetVersion.invokeExact(out));
    }

    /** Makes device {@code ordinal} the calling thread's current device. Hot: on every entry. */
    static void setDevice(int ordinal) {
        try { // hot: no lambda
            check("hipSetDevice", (int) hipSetDevice.invokeExact(ordinal));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipSetDevice", t);
        }
    }

    static String deviceName(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            CALLS.run("hipDeviceGetName", () -> (int) hipDeviceGetName.invokeExact(out, 256, ordinal));
            out.set(JAVA_BYTE, 255, (byte) 0);
            return out.getString(0);
        }
    }

    static long deviceTotalMemory(int ordinal) {
        return CALLS.longOut("hipDeviceTotalMem", out -> (int) hipDeviceTotalMem.invokeExact(out, ordinal));
    }

    static int deviceAttribute(int attribute, int ordinal) {
        return CALLS.intOut("hipDeviceGetAttribute(" + attribute + ")",
                out -> (int) hipDeviceGetAttribute.invokeExact(out, attribute, ordinal));
    }

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it, so a
     * host allocation, module load or synchronous copy made this way does not invalidate a capture in progress.
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        return CALLS.withRelaxedCaptureMode("hipThreadExchangeStreamCaptureMode", hipThreadExchangeStreamCaptureMode,
                HipNative.HIP_STREAM_CAPTURE_MODE_RELAXED, action);
    }

    // ---- streams and memory ----------------------------------------------------------------------------

    static MemorySegment streamCreate(int flags) {
        return CALLS.addressOut("hipStreamCreateWithFlags",
                out -> (int) hipStreamCreateWithFlags.invokeExact(out, flags));
    }

    static void streamDestroy(MemorySegment stream) {
        CALLS.run("hipStreamDestroy", () -> (int) hipStreamDestroy.invokeExact(stream));
    }

    static void streamSynchronize(MemorySegment stream) {
        CALLS.run("hipStreamSynchronize", () -> (int) hipStreamSynchronize.invokeExact(stream));
    }

    /** {@code hipStreamQuery}: 0 idle, 600 busy, anything else an asynchronous error of earlier work. */
    static int tryStreamQuery(MemorySegment stream) {
        return DriverCalls.raw("hipStreamQuery", () -> (int) hipStreamQuery.invokeExact(stream));
    }

    /** A device allocation of {@code bytes}; out-of-memory raises {@code DeviceOutOfMemoryException}. */
    static long malloc(long bytes) {
        return CALLS.allocationOut("hipMalloc", bytes, out -> (int) hipMalloc.invokeExact(out, bytes)).address();
    }

    static void free(long pointer) {
        CALLS.run("hipFree", () -> (int) hipFree.invokeExact(MemorySegment.ofAddress(pointer)));
    }

    /** Page-locked host memory of {@code bytes}, as a segment of that size (free with {@link #hostFree}). */
    static MemorySegment hostMalloc(long bytes) {
        return CALLS.allocationOut("hipHostMalloc", bytes,
                out -> (int) hipHostMalloc.invokeExact(out, bytes, HipNative.HIP_HOST_MALLOC_DEFAULT));
    }

    static void hostFree(MemorySegment pinned) {
        CALLS.run("hipHostFree", () -> (int) hipHostFree.invokeExact(pinned));
    }

    /** Synchronous host-to-device copy; {@code src} must be a native segment. */
    static void memcpyHtoD(long dst, MemorySegment src, long bytes) {
        CALLS.run("hipMemcpyHtoD", () -> (int) hipMemcpyHtoD.invokeExact(MemorySegment.ofAddress(dst), src, bytes));
    }

    /** Stream-ordered host-to-device copy; {@code src} must stay valid until the copy ran (pinned staging). */
    static void memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        try { // hot: no lambda
            check("hipMemcpyHtoDAsync",
                    (int) hipMemcpyHtoDAsync.invokeExact(MemorySegment.ofAddress(dst), src, bytes, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipMemcpyHtoDAsync", t);
        }
    }

    /** Stream-ordered device-to-host copy into pinned memory. */
    static void memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        CALLS.run("hipMemcpyDtoHAsync",
                () -> (int) hipMemcpyDtoHAsync.invokeExact(dst, MemorySegment.ofAddress(src), bytes, stream));
    }

    // ---- modules and launches --------------------------------------------------------------------------

    /** {@code hipModuleLoadData}; the raw code, because the compiler reports a failure with the kernel's name. */
    static int tryModuleLoadData(MemorySegment moduleOut, MemorySegment image) {
        return DriverCalls.raw("hipModuleLoadData", () -> (int) hipModuleLoadData.invokeExact(moduleOut, image));
    }

    /** {@code hipModuleGetFunction}; the raw code, because a missing entry point is a compilation error. */
    static int tryModuleGetFunction(MemorySegment functionOut, MemorySegment module, MemorySegment name) {
        return DriverCalls.raw("hipModuleGetFunction",
                () -> (int) hipModuleGetFunction.invokeExact(functionOut, module, name));
    }

    static void moduleUnload(MemorySegment module) {
        CALLS.run("hipModuleUnload", () -> (int) hipModuleUnload.invokeExact(module));
    }

    /** Launches {@code function} on {@code stream} with {@code params} ({@code void**}), no shared memory. */
    static void launchKernel(MemorySegment function, int gridX, int gridY, int gridZ,
                             int blockX, int blockY, int blockZ, MemorySegment stream, MemorySegment params) {
        try { // hot: no lambda
            check("hipModuleLaunchKernel", (int) hipModuleLaunchKernel.invokeExact(function, gridX, gridY, gridZ,
                    blockX, blockY, blockZ, 0, stream, params, MemorySegment.NULL));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipModuleLaunchKernel", t);
        }
    }

    // ---- events ----------------------------------------------------------------------------------------

    static MemorySegment eventCreate(int flags) {
        return CALLS.addressOut("hipEventCreateWithFlags",
                out -> (int) hipEventCreateWithFlags.invokeExact(out, flags));
    }

    static void eventRecord(MemorySegment event, MemorySegment stream) {
        try { // hot: no lambda
            check("hipEventRecord", (int) hipEventRecord.invokeExact(event, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipEventRecord", t);
        }
    }

    /** Whether the work before {@code event} finished: 0 true, 600 (not ready) false, else throws. */
    static boolean eventQuery(MemorySegment event) {
        int rc;
        try {
            rc = (int) hipEventQuery.invokeExact(event);
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipEventQuery", t);
        }
        return CALLS.ready("hipEventQuery", rc);
    }

    static void eventSynchronize(MemorySegment event) {
        CALLS.run("hipEventSynchronize", () -> (int) hipEventSynchronize.invokeExact(event));
    }

    static void eventDestroy(MemorySegment event) {
        CALLS.run("hipEventDestroy", () -> (int) hipEventDestroy.invokeExact(event));
    }

    // ---- stream capture and graphs ---------------------------------------------------------------------

    /** Begins capture in {@code mode}; 401 (already capturing) raises {@code GraphStateException}. */
    static void streamBeginCapture(MemorySegment stream, int mode) {
        int rc = DriverCalls.raw("hipStreamBeginCapture", () -> (int) hipStreamBeginCapture.invokeExact(stream, mode));
        if (rc != HIP_SUCCESS) {
            throw ERRORS.toBeginCaptureException("hipStreamBeginCapture", rc);
        }
    }

    /** {@code hipStreamEndCapture}; the raw code, because the caller must clean up whatever it returns. */
    static int tryStreamEndCapture(MemorySegment stream, MemorySegment graphOut) {
        return DriverCalls.raw("hipStreamEndCapture", () -> (int) hipStreamEndCapture.invokeExact(stream, graphOut));
    }

    /** The stream's {@code hipStreamCaptureStatus}: NONE 0, ACTIVE 1, INVALIDATED 2. */
    static int streamCaptureStatus(MemorySegment stream) {
        return CALLS.intOut("hipStreamIsCapturing", out -> (int) hipStreamIsCapturing.invokeExact(stream, out));
    }

    /** The {@code hipGraphNodeType} of every node of {@code graph}, in the runtime's order. */
    static int[] graphNodeTypes(MemorySegment graph) {
        return CALLS.graphNodeTypes(graph, "hipGraphGetNodes", hipGraphGetNodes, "hipGraphNodeGetType",
                hipGraphNodeGetType);
    }

    /** {@code hipGraphInstantiateWithFlags(graph, 0)}. */
    static MemorySegment graphInstantiate(MemorySegment graph) {
        return CALLS.addressOut("hipGraphInstantiateWithFlags", out -> (int) hipGraphInstantiateWithFlags.invokeExact(
                out, graph, HipNative.HIP_GRAPH_INSTANTIATE_FLAGS));
    }

    /** {@code hipGraphUpload}; only call when {@link #hasGraphUpload()}. */
    static void graphUpload(MemorySegment exec, MemorySegment stream) {
        if (hipGraphUpload == null) {
            throw new IllegalStateException(HipLibrary.origin() + " has no hipGraphUpload");
        }
        CALLS.run("hipGraphUpload", () -> (int) hipGraphUpload.invokeExact(exec, stream));
    }

    static void graphLaunch(MemorySegment exec, MemorySegment stream) {
        try { // hot: no lambda
            check("hipGraphLaunch", (int) hipGraphLaunch.invokeExact(exec, stream));
        } catch (Throwable t) {
            throw DriverCalls.unexpected("hipGraphLaunch", t);
        }
    }

    static void graphExecDestroy(MemorySegment exec) {
        CALLS.run("hipGraphExecDestroy", () -> (int) hipGraphExecDestroy.invokeExact(exec));
    }

    static void graphDestroy(MemorySegment graph) {
        CALLS.run("hipGraphDestroy", () -> (int) hipGraphDestroy.invokeExact(graph));
    }

    /** Writes {@code graph} as Graphviz DOT to {@code path}; only call when {@link #hasGraphDebugDotPrint()}. */
    static void graphDebugDotPrint(MemorySegment graph, String path, int flags) {
        if (hipGraphDebugDotPrint == null) {
            throw new IllegalStateException(HipLibrary.origin() + " has no hipGraphDebugDotPrint");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cPath = arena.allocateFrom(path);
            CALLS.run("hipGraphDebugDotPrint", () -> (int) hipGraphDebugDotPrint.invokeExact(graph, cPath, flags));
        }
    }
}
