package dev.graphrt.backend.cuda;

import static dev.graphrt.backend.cuda.CudaHandles.*;
import static dev.graphrt.driver.HardwareGraphErrors.SUCCESS;
import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.DriverCaptureModes;
import dev.graphrt.driver.DriverNames;
import dev.graphrt.driver.HardwareGraphErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The typed layer of the CUDA driver API's process-wide calls: initialisation, device lookup, error names and the
 * capture-mode exchange. Each method checks the {@code CUresult} of one raw {@link CudaHandles} handle and throws
 * GraphRT's exception for it ({@link #ERRORS}, through the shared {@link DriverCalls}); methods named
 * {@code try...} return the raw code instead, for probes and cleanup paths that must not throw.
 *
 * <p>The other calls live with their only caller, each with its own {@code static final} handles: contexts in
 * {@link CudaContext}, modules in {@link CudaModules}, streams in {@link CudaStream}, graphs in {@link CudaGraphs},
 * memory in {@link CudaDeviceMemory}; the calls CUDA declares as HIP does are made by the shared driver layer.
 * The handles are initialised on the first call, which the backend makes only after {@link CudaLibrary#failure()}
 * was empty, so a machine without a driver never fails in a class initialiser.
 */
final class CudaDriver {
    private CudaDriver() {}

    /** Maps failed calls to exceptions, naming codes through {@code cuGetErrorName}. */
    static final HardwareGraphErrors ERRORS = HardwareGraphErrors.withNames(CudaDriver::resultName);
    /** The checked-call helpers over {@link #ERRORS}, for the backend's typed calls. */
    static final DriverCalls CALLS = new DriverCalls(ERRORS);
    /** The backend's name, call prefix and error mapping; binds nothing, so tests use it without a driver. */
    static final DriverNames NAMES = new DriverNames("cuda", "cu", ERRORS);

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

    // ---- initialisation and devices -------------------------------------------------------------------

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

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED, then restores it: a host
     * allocation or module load made this way does not invalidate a GLOBAL or THREAD_LOCAL capture in progress
     * (the H200 probes: {@code cuMemAlloc_v2} under a relaxed exchange succeeds mid-capture).
     */
    static <T> T withRelaxedCaptureMode(Supplier<T> action) {
        return CALLS.withRelaxedCaptureMode(
                "cuThreadExchangeStreamCaptureMode",
                cuThreadExchangeStreamCaptureMode,
                DriverCaptureModes.RELAXED,
                action);
    }
}
