package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.*;
import static dev.graphrt.driver.HardwareGraphErrors.SUCCESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverCaptureModes;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The typed layer of the HIP runtime API outside the stream: initialisation, devices, the capture-mode exchange,
 * memory and modules. Each method checks the {@code hipError_t} of one raw {@link HipHandles} handle and throws
 * GraphRT's exception for it ({@link #ERRORS}, the mapping shared with the cuda backend, through
 * {@link DriverCalls}); methods named {@code try...} return the raw code instead, for probes and cleanup paths
 * that must not throw. The stream and graph calls are {@link HipStream}'s and {@link HipGraphs}'.
 *
 * <p>Optional symbols ({@code hipGraphUpload}, {@code hipGraphDebugDotPrint}) are bound only when the library
 * exports them: ask {@link #hasGraphUpload()} and {@link #hasGraphDebugDotPrint()}. Device pointers are
 * {@code void*} in HIP; this class takes them as {@code long} addresses and wraps them in
 * {@link MemorySegment#ofAddress}. {@link #setDevice} runs on every entry, so it is a plain {@code invokeExact}.
 */
final class HipRuntime {
    private HipRuntime() {
    }

    /** Maps failed calls to exceptions, naming codes through {@code hipGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(HipRuntime::resultName);
    /** The checked-call helpers over {@link #ERRORS}, for the backend's typed calls. */
    static final DriverCalls CALLS = new DriverCalls(ERRORS);
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HipRuntime.class);

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

    /**
     * The last step of closing a backend: HIP keeps one device context for the process's life, so a sticky
     * error (an illegal address, a trap) would poison every later runtime. When the device reports one, it is
     * reset, and the next runtime starts on a clean device. A healthy device is left as it is.
     */
    static void resetIfLost(HipDevice device) {
        device.makeCurrent();
        int rc;
        try {
            rc = (int) hipDeviceSynchronize.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("hipDeviceSynchronize failed to run", t);
        }
        if (HardwareGraphErrors.isSticky(rc)) {
            LOG.warn("hip: the device reports a sticky error ({} {}): resetting it so later runtimes work", rc,
                    ERRORS.name(rc));
            CALLS.run("hipDeviceReset", () -> (int) hipDeviceReset.invokeExact());
        }
    }

    /** Whether the library exports {@code hipGraphUpload} (ROCm 5.3+; not Debian's 5.2). */
    static boolean hasGraphUpload() {
        return BINDER.exports(HipNative.Symbol.hipGraphUpload);
    }

    /** Whether the library exports {@code hipGraphDebugDotPrint} (ROCm 5.5+). */
    static boolean hasGraphDebugDotPrint() {
        return BINDER.exports(HipNative.Symbol.hipGraphDebugDotPrint);
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
            return new DeviceCount(rc, rc == SUCCESS ? out.get(JAVA_INT, 0) : 0);
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
                DriverCaptureModes.RELAXED, action);
    }

    // ---- memory ----------------------------------------------------------------------------------------

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
}
