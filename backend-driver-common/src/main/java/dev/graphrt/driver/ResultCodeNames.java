package dev.graphrt.driver;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The result codes of the CUDA driver API ({@code CUresult}, from {@code cuda.h}, CUDA 13.0) and of the HIP runtime
 * ({@code hipError_t}, from {@code hip_runtime_api.h}, ROCm 5.2.3), one row a number with each API's name for it
 * (null where that API has no such code). A backend names a code from this table when its library cannot
 * ({@code cuGetErrorName}, {@code hipGetErrorName}).
 *
 * <p>Why one table: HIP numbers its results as CUDA does (2 out of memory, 401 illegal state, 700-719 sticky
 * device errors, 900-910 capture failures: the numbers {@link HardwareGraphErrors} maps), so each number is
 * written once and the two columns show where the APIs differ. Each column is checked against its header by the
 * backend's tests.
 */
public final class ResultCodeNames {
    private ResultCodeNames() {}

    /** One result code and its name in each API; null where the API lacks the code. */
    private record Row(int code, String cuda, String hip) {}

    private static final List<Row> ROWS = List.of(
            new Row(0, "CUDA_SUCCESS", "hipSuccess"),
            new Row(1, "CUDA_ERROR_INVALID_VALUE", "hipErrorInvalidValue"),
            new Row(2, "CUDA_ERROR_OUT_OF_MEMORY", "hipErrorOutOfMemory"),
            new Row(3, "CUDA_ERROR_NOT_INITIALIZED", "hipErrorNotInitialized"),
            new Row(4, "CUDA_ERROR_DEINITIALIZED", "hipErrorDeinitialized"),
            new Row(5, null, "hipErrorProfilerDisabled"),
            new Row(6, null, "hipErrorProfilerNotInitialized"),
            new Row(7, null, "hipErrorProfilerAlreadyStarted"),
            new Row(8, null, "hipErrorProfilerAlreadyStopped"),
            new Row(9, null, "hipErrorInvalidConfiguration"),
            new Row(12, null, "hipErrorInvalidPitchValue"),
            new Row(13, null, "hipErrorInvalidSymbol"),
            new Row(17, null, "hipErrorInvalidDevicePointer"),
            new Row(21, null, "hipErrorInvalidMemcpyDirection"),
            new Row(34, "CUDA_ERROR_STUB_LIBRARY", null),
            new Row(35, null, "hipErrorInsufficientDriver"),
            new Row(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", null),
            new Row(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", null),
            new Row(52, null, "hipErrorMissingConfiguration"),
            new Row(53, null, "hipErrorPriorLaunchFailure"),
            new Row(98, null, "hipErrorInvalidDeviceFunction"),
            new Row(100, "CUDA_ERROR_NO_DEVICE", "hipErrorNoDevice"),
            new Row(101, "CUDA_ERROR_INVALID_DEVICE", "hipErrorInvalidDevice"),
            new Row(200, "CUDA_ERROR_INVALID_IMAGE", "hipErrorInvalidImage"),
            new Row(201, "CUDA_ERROR_INVALID_CONTEXT", "hipErrorInvalidContext"),
            new Row(202, null, "hipErrorContextAlreadyCurrent"),
            new Row(205, null, "hipErrorMapFailed"),
            new Row(206, null, "hipErrorUnmapFailed"),
            new Row(207, null, "hipErrorArrayIsMapped"),
            new Row(208, null, "hipErrorAlreadyMapped"),
            new Row(209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "hipErrorNoBinaryForGpu"),
            new Row(210, null, "hipErrorAlreadyAcquired"),
            new Row(211, null, "hipErrorNotMapped"),
            new Row(212, null, "hipErrorNotMappedAsArray"),
            new Row(213, null, "hipErrorNotMappedAsPointer"),
            new Row(214, null, "hipErrorECCNotCorrectable"),
            new Row(215, null, "hipErrorUnsupportedLimit"),
            new Row(216, null, "hipErrorContextAlreadyInUse"),
            new Row(217, null, "hipErrorPeerAccessUnsupported"),
            new Row(218, "CUDA_ERROR_INVALID_PTX", "hipErrorInvalidKernelFile"),
            new Row(219, null, "hipErrorInvalidGraphicsContext"),
            new Row(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", null),
            new Row(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", null),
            new Row(300, null, "hipErrorInvalidSource"),
            new Row(301, null, "hipErrorFileNotFound"),
            new Row(302, null, "hipErrorSharedObjectSymbolNotFound"),
            new Row(303, null, "hipErrorSharedObjectInitFailed"),
            new Row(304, "CUDA_ERROR_OPERATING_SYSTEM", "hipErrorOperatingSystem"),
            new Row(400, "CUDA_ERROR_INVALID_HANDLE", "hipErrorInvalidHandle"),
            new Row(401, "CUDA_ERROR_ILLEGAL_STATE", "hipErrorIllegalState"),
            new Row(500, "CUDA_ERROR_NOT_FOUND", "hipErrorNotFound"),
            new Row(600, "CUDA_ERROR_NOT_READY", "hipErrorNotReady"),
            new Row(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "hipErrorIllegalAddress"),
            new Row(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "hipErrorLaunchOutOfResources"),
            new Row(702, "CUDA_ERROR_LAUNCH_TIMEOUT", "hipErrorLaunchTimeOut"),
            new Row(704, null, "hipErrorPeerAccessAlreadyEnabled"),
            new Row(705, null, "hipErrorPeerAccessNotEnabled"),
            new Row(708, null, "hipErrorSetOnActiveProcess"),
            new Row(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "hipErrorContextIsDestroyed"),
            new Row(710, "CUDA_ERROR_ASSERT", "hipErrorAssert"),
            new Row(712, null, "hipErrorHostMemoryAlreadyRegistered"),
            new Row(713, null, "hipErrorHostMemoryNotRegistered"),
            new Row(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", null),
            new Row(716, "CUDA_ERROR_MISALIGNED_ADDRESS", null),
            new Row(719, "CUDA_ERROR_LAUNCH_FAILED", "hipErrorLaunchFailure"),
            new Row(720, null, "hipErrorCooperativeLaunchTooLarge"),
            new Row(800, "CUDA_ERROR_NOT_PERMITTED", null),
            new Row(801, "CUDA_ERROR_NOT_SUPPORTED", "hipErrorNotSupported"),
            new Row(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", null),
            new Row(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", null),
            new Row(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "hipErrorStreamCaptureUnsupported"),
            new Row(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "hipErrorStreamCaptureInvalidated"),
            new Row(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "hipErrorStreamCaptureMerge"),
            new Row(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "hipErrorStreamCaptureUnmatched"),
            new Row(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "hipErrorStreamCaptureUnjoined"),
            new Row(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "hipErrorStreamCaptureIsolation"),
            new Row(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "hipErrorStreamCaptureImplicit"),
            new Row(907, "CUDA_ERROR_CAPTURED_EVENT", "hipErrorCapturedEvent"),
            new Row(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "hipErrorStreamCaptureWrongThread"),
            new Row(909, "CUDA_ERROR_TIMEOUT", null),
            new Row(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "hipErrorGraphExecUpdateFailure"),
            new Row(911, "CUDA_ERROR_EXTERNAL_DEVICE", null),
            new Row(913, "CUDA_ERROR_FUNCTION_NOT_LOADED", null),
            new Row(999, "CUDA_ERROR_UNKNOWN", "hipErrorUnknown"),
            new Row(1052, null, "hipErrorRuntimeMemory"),
            new Row(1053, null, "hipErrorRuntimeOther"));

    /** {@code CUresult} names by code, for the codes {@code cuda.h} declares. */
    public static final Map<Integer, String> CUDA = column(true);
    /** {@code hipError_t} names by code: exactly the first name of each number in {@code hipError_t}. */
    public static final Map<Integer, String> HIP = column(false);

    private static Map<Integer, String> column(boolean cuda) {
        Map<Integer, String> names = new HashMap<>();
        for (Row row : ROWS) {
            String name = cuda ? row.cuda() : row.hip();
            if (name != null) {
                names.put(row.code(), name);
            }
        }
        return Map.copyOf(names);
    }
}
