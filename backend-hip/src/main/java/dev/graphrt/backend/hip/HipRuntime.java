package dev.graphrt.backend.hip;

import static dev.graphrt.backend.hip.HipHandles.*;
import static dev.graphrt.driver.HardwareGraphErrors.SUCCESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverCaptureModes;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The typed layer of the HIP runtime API's process-wide calls: initialisation, devices, error names, the
 * capture-mode exchange and the reset after a device loss. Each method checks the {@code hipError_t} of one raw
 * {@link HipHandles} handle and throws GraphRT's exception for it ({@link #ERRORS}, the mapping shared with the
 * cuda backend, through {@link DriverCalls}); methods named {@code try...} return the raw code instead, for probes
 * and cleanup paths that must not throw. The other calls live with their only caller, each with its own
 * {@code static final} handles: modules in {@link HipModules}, streams in {@link HipStream}, graphs in
 * {@link HipGraphs}, memory in {@link HipDeviceMemory}; the calls HIP declares as CUDA does are made by the shared
 * driver layer.
 *
 * <p>Optional symbols ({@code hipGraphUpload}, {@code hipGraphDebugDotPrint}) are bound only when the library
 * exports them: ask {@link #hasGraphUpload()} and {@link #hasGraphDebugDotPrint()}. {@link #setDevice} runs on
 * every entry, so it is a plain {@code invokeExact}.
 */
final class HipRuntime {
    private HipRuntime() {}

    /** Maps failed calls to exceptions, naming codes through {@code hipGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(HipRuntime::resultName);
    /** The checked-call helpers over {@link #ERRORS}, for the backend's typed calls. */
    static final DriverCalls CALLS = new DriverCalls(ERRORS);
    /** The backend's name, call prefix and error mapping; binds nothing, so tests use it without a runtime. */
    static final DriverNames NAMES = new DriverNames("hip", "hip", ERRORS);

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
            LOG.warn(
                    "hip: the device reports a sticky error ({} {}): resetting it so later runtimes work",
                    rc,
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
    record DeviceCount(int result, int count) {}

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

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it, so a
     * host allocation, module load or synchronous copy made this way does not invalidate a capture in progress.
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        return CALLS.withRelaxedCaptureMode(
                "hipThreadExchangeStreamCaptureMode",
                hipThreadExchangeStreamCaptureMode,
                DriverCaptureModes.RELAXED,
                action);
    }
}
