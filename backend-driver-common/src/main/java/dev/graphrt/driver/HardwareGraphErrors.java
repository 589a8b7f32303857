package dev.graphrt.driver;

import dev.graphrt.api.CaptureInvalidatedException;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphStateException;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Turns the result code of a failed driver call into GraphRT's exception family, for the drivers whose
 * graph APIs share one numbering: CUDA ({@code CUresult}) and HIP ({@code hipError_t}) both use 2 for
 * out-of-memory, 401 for an illegal capture state and 900-910 for stream-capture failures.
 *
 * <p>Why one place: the core's recovery depends on the exception <em>type</em> (an invalidated capture is
 * recoverable, a state error means the stream already captures), so both hardware backends must agree.
 * A backend supplies only its own code names (its {@code cuGetErrorName}, or a table).
 *
 * <ul>
 *   <li>900-910 → {@link CaptureInvalidatedException} with the driver code, caused by a {@link DriverException};</li>
 *   <li>401 from a begin-capture call → {@link GraphStateException} (the stream already captures);</li>
 *   <li>2 → {@link DeviceOutOfMemoryException};</li>
 *   <li>sticky device errors (700 illegal address, 702 launch timeout, 709 context destroyed (by a reset after
 *       one of the others), 710 device assert, 714-719 hardware stack,
 *       illegal instruction, misaligned or invalid address, invalid PC, launch failure) → {@link DeviceLostException}:
 *       the context is unusable until it is reset, so the runtime is lost, not the call;</li>
 *   <li>anything else → {@link DriverException} with the call, code and code name.</li>
 * </ul>
 */
public final class HardwareGraphErrors {
    /** The call succeeded: {@code CUDA_SUCCESS}, {@code hipSuccess}. */
    public static final int SUCCESS = 0;
    /** A bad argument: {@code CUDA_ERROR_INVALID_VALUE}, {@code hipErrorInvalidValue}. */
    public static final int INVALID_VALUE = 1;
    /** Out of device (or pinned host) memory: {@code CUDA_ERROR_OUT_OF_MEMORY}, {@code hipErrorOutOfMemory}. */
    public static final int OUT_OF_MEMORY = 2;
    /** Begin on a capturing stream, or end on one that is not capturing. */
    public static final int ILLEGAL_STATE = 401;
    /** A named symbol or entry point does not exist: {@code CUDA_ERROR_NOT_FOUND}, {@code hipErrorNotFound}. */
    public static final int NOT_FOUND = 500;
    /** Work not finished yet (event or stream query); not an error for a query. */
    public static final int NOT_READY = 600;
    /** First code of the stream-capture family. */
    public static final int FIRST_CAPTURE_CODE = 900;
    /** Last code of the stream-capture family. */
    public static final int LAST_CAPTURE_CODE = 910;
    /** {@code CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE}, {@code hipErrorGraphExecUpdateFailure}: an update was refused. */
    public static final int GRAPH_EXEC_UPDATE_FAILURE = 910;

    /** Codes after which the context (CUDA) or device (HIP) is unusable until reset; both number them alike. */
    private static final java.util.Set<Integer> STICKY =
            java.util.Set.of(700, 702, 709, 710, 714, 715, 716, 717, 718, 719);

    private final IntFunction<String> codeNames;

    private HardwareGraphErrors(IntFunction<String> codeNames) {
        this.codeNames = codeNames;
    }

    /**
     * A mapper whose code names come from {@code codeNames} (e.g. a wrapper of {@code cuGetErrorName}).
     * The function must not throw and must not return null; see {@link #withNames(Map, String)} for a table.
     */
    public static HardwareGraphErrors withNames(IntFunction<String> codeNames) {
        return new HardwareGraphErrors(Objects.requireNonNull(codeNames, "codeNames"));
    }

    /** A mapper backed by a fixed table; unknown codes read {@code unknownPrefix(code)}, e.g. {@code CUresult(12)}. */
    public static HardwareGraphErrors withNames(Map<Integer, String> table, String unknownPrefix) {
        Map<Integer, String> copy = Map.copyOf(table);
        Objects.requireNonNull(unknownPrefix, "unknownPrefix");
        return new HardwareGraphErrors(code -> {
            String name = copy.get(code);
            return name != null ? name : unknownPrefix + "(" + code + ")";
        });
    }

    /** Whether {@code code} is one of the stream-capture failures (900-910) that invalidate a capture. */
    public static boolean isCaptureFailure(int code) {
        return code >= FIRST_CAPTURE_CODE && code <= LAST_CAPTURE_CODE;
    }

    /** Whether {@code code} is a sticky device error: the context must be reset before the device works again. */
    public static boolean isSticky(int code) {
        return STICKY.contains(code);
    }

    /** The symbolic name of {@code code} as this backend spells it. */
    public String name(int code) {
        String name = codeNames.apply(code);
        return name == null ? "(" + code + ")" : name;
    }

    /** The exception for {@code call} failing with {@code code}. */
    public GraphRTException toException(String call, int code) {
        return toException(call, code, 0L);
    }

    /**
     * The exception for {@code call} failing with {@code code}; {@code requestedBytes} is reported when the
     * failure is out-of-memory (0 when the call allocated nothing the caller knows of).
     */
    public GraphRTException toException(String call, int code, long requestedBytes) {
        String name = name(code);
        if (isSticky(code)) {
            return new DeviceLostException(call, code, name);
        }
        DriverException driver = new DriverException(call, code, name);
        if (isCaptureFailure(code)) {
            return new CaptureInvalidatedException(
                    call + " failed: " + code + " " + name + ": " + explainCaptureFailure(code), code, driver);
        }
        if (code == OUT_OF_MEMORY) {
            return new DeviceOutOfMemoryException(
                    call + " failed: " + code + " " + name
                            + (requestedBytes > 0 ? ": could not allocate " + requestedBytes + " bytes" : "")
                            + "; close buffers or graphs, or call runtime.trim()",
                    requestedBytes,
                    driver);
        }
        return driver;
    }

    /**
     * The exception for a begin-capture call failing with {@code code}: 401 means the stream already
     * captures, an ordering error rather than a driver fault; everything else maps as {@link #toException}.
     */
    public GraphRTException toBeginCaptureException(String call, int code) {
        if (code == ILLEGAL_STATE) {
            String name = name(code);
            return new GraphStateException(
                    call + " failed: " + code + " " + name
                            + ": the stream is already capturing; end or cancel that capture before beginning another",
                    new DriverException(call, code, name));
        }
        return toException(call, code);
    }

    /** What a capture-family code means and what to do about it, in words that fit CUDA and HIP alike. */
    public static String explainCaptureFailure(int code) {
        return switch (code) {
            case 900 ->
                "the operation is not allowed while the stream captures (a host synchronisation, a "
                        + "legacy-stream launch, or an allocation outside RELAXED mode); the capture is invalidated";
            case 901 -> "an earlier operation invalidated the capture; no graph was produced, capture again";
            case 902 -> "two independent captures were merged through an event";
            case 903 -> "the capture was not begun on this stream";
            case 904 -> "a stream forked from the capture was not joined back before it ended";
            case 905 -> "the capture waited on work recorded outside it";
            case 906 ->
                "an operation implicitly synchronised with the capturing stream (a blocking stream "
                        + "or the legacy default stream)";
            case 907 -> "an event recorded inside the capture was queried or waited on from the host";
            case 908 ->
                "the capture was ended from another thread than the one that began it; use RELAXED "
                        + "mode to allow that";
            case 909 -> "the driver timed out";
            case 910 -> "the graph could not be updated in place";
            default -> "the stream capture failed";
        };
    }
}
