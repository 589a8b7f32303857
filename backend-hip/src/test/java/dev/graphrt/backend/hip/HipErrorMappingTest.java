package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.CaptureInvalidatedException;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.driver.HardwareGraphErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The error mapping the hip backend shares with cuda ({@link HardwareGraphErrors}), with HIP's code names. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipErrorMappingTest {
    private static final Path HEADER = Path.of("/usr/include/hip/hip_runtime_api.h");

    private final HardwareGraphErrors errors =
            HardwareGraphErrors.withNames(HipNative.RESULT_NAMES, HipNative.UNKNOWN_RESULT_PREFIX);

    @ParameterizedTest(name = "code {0}")
    @ValueSource(ints = {900, 901, 902, 903, 904, 905, 906, 907, 908, 910})
    void a_capture_family_code_becomes_CaptureInvalidatedException_named_as_HIP_names_it(int code) {
        GraphRTException e = errors.toException("hipStreamEndCapture", code);

        assertThat(e)
                .isInstanceOfSatisfying(
                        CaptureInvalidatedException.class,
                        invalidated -> assertThat(invalidated.driverCode()).isEqualTo(code));
        assertThat(e.getMessage())
                .contains("hipStreamEndCapture")
                .contains(String.valueOf(code))
                .contains(HipNative.RESULT_NAMES.get(code));
        assertThat(e.getCause())
                .isInstanceOfSatisfying(
                        DriverException.class,
                        cause -> assertThat(cause.codeName()).startsWith("hipError"));
    }

    @Test
    void the_capture_codes_carry_HIPs_names() {
        assertThat(HipNative.RESULT_NAMES.get(900)).isEqualTo("hipErrorStreamCaptureUnsupported");
        assertThat(HipNative.RESULT_NAMES.get(901)).isEqualTo("hipErrorStreamCaptureInvalidated");
        assertThat(HipNative.RESULT_NAMES.get(907)).isEqualTo("hipErrorCapturedEvent");
        assertThat(HipNative.RESULT_NAMES.get(908)).isEqualTo("hipErrorStreamCaptureWrongThread");
        assertThat(HipNative.RESULT_NAMES.get(910)).isEqualTo("hipErrorGraphExecUpdateFailure");
        assertThat(HipNative.RESULT_NAMES).as("HIP has no 909 (CUDA's timeout)").doesNotContainKey(909);
    }

    @Test
    void illegal_state_on_begin_capture_is_a_GraphStateException_that_says_the_stream_already_captures() {
        GraphRTException e = errors.toBeginCaptureException("hipStreamBeginCapture", 401);

        assertThat(e).isInstanceOf(GraphStateException.class);
        assertThat(e.getMessage())
                .contains("hipStreamBeginCapture")
                .contains("401 hipErrorIllegalState")
                .contains("already capturing");
    }

    @Test
    void out_of_memory_becomes_DeviceOutOfMemoryException_with_the_requested_bytes() {
        GraphRTException e = errors.toException("hipMalloc", 2, 1L << 40);

        assertThat(e)
                .isInstanceOfSatisfying(
                        DeviceOutOfMemoryException.class,
                        oom -> assertThat(oom.requestedBytes()).isEqualTo(1L << 40));
        assertThat(e.getMessage()).contains("hipMalloc failed: 2 hipErrorOutOfMemory");
    }

    @Test
    void ordinary_failures_are_DriverExceptions_with_HIPs_name_and_unknown_codes_get_a_generated_one() {
        assertThat(errors.toException("hipModuleLaunchKernel", 700))
                .as("an illegal address is sticky: the device, not the call, is lost")
                .isInstanceOf(dev.graphrt.api.DeviceLostException.class)
                .hasMessageStartingWith(
                        "hipModuleLaunchKernel failed: 700 hipErrorIllegalAddress: a sticky device error");
        assertThat(errors.toException("hipModuleLaunchKernel", 719))
                .isInstanceOf(dev.graphrt.api.DeviceLostException.class);
        assertThat(errors.toException("hipStreamQuery", 600))
                .isInstanceOf(DriverException.class)
                .hasMessage("hipStreamQuery failed: 600 hipErrorNotReady");
        assertThat(errors.toException("hipFree", 12345))
                .isInstanceOfSatisfying(
                        DriverException.class, d -> assertThat(d.codeName()).isEqualTo("hipError_t(12345)"));
    }

    @Test
    void the_runtime_mapper_names_codes_without_throwing_whether_or_not_a_library_answers() {
        assertThat(HipRuntime.resultName(901)).isEqualTo("hipErrorStreamCaptureInvalidated");
        assertThat(HipRuntime.resultName(100)).isEqualTo("hipErrorNoDevice");
        assertThat(HipRuntime.ERRORS.toException("hipStreamSynchronize", 900))
                .isInstanceOf(CaptureInvalidatedException.class)
                .hasMessageContaining("hipErrorStreamCaptureUnsupported");
    }

    @Test
    void the_shared_codes_mean_the_same_in_HIP_as_in_CUDA() {
        assertThat(HipNative.RESULT_NAMES.get(HardwareGraphErrors.OUT_OF_MEMORY))
                .isEqualTo("hipErrorOutOfMemory");
        assertThat(HipNative.RESULT_NAMES.get(HardwareGraphErrors.ILLEGAL_STATE))
                .isEqualTo("hipErrorIllegalState");
        assertThat(HipNative.RESULT_NAMES.get(HardwareGraphErrors.NOT_READY)).isEqualTo("hipErrorNotReady");
    }

    @Test
    void the_name_table_is_exactly_the_hipError_t_enum_of_the_installed_header() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.exists(HEADER), "hip_runtime_api.h is not installed here (apt-get install libamdhip64-dev)");
        String header = Files.readString(HEADER);
        String body = header.substring(
                header.indexOf("typedef enum __HIP_NODISCARD hipError_t {"), header.indexOf("} hipError_t;"));
        Map<Integer, String> declared = new LinkedHashMap<>();
        Matcher entry = Pattern.compile("^\\s*(hipError\\w+|hipSuccess)\\s*=\\s*(\\d+)", Pattern.MULTILINE)
                .matcher(body);
        while (entry.find()) {
            declared.putIfAbsent(
                    Integer.parseInt(entry.group(2)),
                    entry.group(1)); // the first name of a number; later ones are deprecated aliases
        }

        assertThat(HipNative.RESULT_NAMES).isEqualTo(declared);
    }
}
