package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.CaptureInvalidatedException;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.driver.HardwareGraphErrors;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HardwareGraphErrorsTest {
    private final HardwareGraphErrors errors =
            HardwareGraphErrors.withNames(CudaNative.RESULT_NAMES, CudaNative.UNKNOWN_RESULT_PREFIX);

    @ParameterizedTest(name = "code {0}")
    @ValueSource(ints = {900, 901, 902, 903, 904, 905, 906, 907, 908, 909, 910})
    void a_capture_family_code_becomes_CaptureInvalidatedException_keeping_the_code(int code) {
        GraphRTException e = errors.toException("cuStreamEndCapture", code);

        assertThat(e).isInstanceOf(CaptureInvalidatedException.class);
        assertThat(((CaptureInvalidatedException) e).driverCode()).isEqualTo(code);
        assertThat(e.getMessage())
                .contains("cuStreamEndCapture")
                .contains(String.valueOf(code))
                .contains(CudaNative.RESULT_NAMES.get(code));
        assertThat(e.getCause()).isInstanceOfSatisfying(DriverException.class, cause -> {
            assertThat(cause.call()).isEqualTo("cuStreamEndCapture");
            assertThat(cause.code()).isEqualTo(code);
            assertThat(cause.codeName()).isEqualTo(CudaNative.RESULT_NAMES.get(code));
        });
    }

    @ParameterizedTest(name = "code {0}")
    @ValueSource(ints = {900, 906, 910})
    void a_capture_family_code_from_begin_capture_is_still_an_invalidation(int code) {
        assertThat(errors.toBeginCaptureException("cuStreamBeginCapture_v2", code))
                .isInstanceOf(CaptureInvalidatedException.class);
    }

    @Test
    void illegal_state_on_begin_capture_is_a_GraphStateException_that_says_the_stream_already_captures() {
        GraphRTException e = errors.toBeginCaptureException("cuStreamBeginCapture_v2", 401);

        assertThat(e).isInstanceOf(GraphStateException.class);
        assertThat(e.getMessage())
                .contains("cuStreamBeginCapture_v2")
                .contains("401")
                .contains("CUDA_ERROR_ILLEGAL_STATE")
                .contains("already capturing");
        assertThat(e.getCause()).isInstanceOf(DriverException.class);
    }

    @Test
    void illegal_state_elsewhere_is_a_plain_DriverException() {
        GraphRTException e = errors.toException("cuStreamEndCapture", 401);

        assertThat(e).isInstanceOfSatisfying(DriverException.class, d -> {
            assertThat(d.call()).isEqualTo("cuStreamEndCapture");
            assertThat(d.code()).isEqualTo(401);
            assertThat(d.codeName()).isEqualTo("CUDA_ERROR_ILLEGAL_STATE");
        });
        assertThat(e.getMessage()).isEqualTo("cuStreamEndCapture failed: 401 CUDA_ERROR_ILLEGAL_STATE");
    }

    @Test
    void out_of_memory_becomes_DeviceOutOfMemoryException_with_the_requested_bytes() {
        GraphRTException e = errors.toException("cuMemAlloc_v2", 2, 1L << 40);

        assertThat(e)
                .isInstanceOfSatisfying(
                        DeviceOutOfMemoryException.class,
                        oom -> assertThat(oom.requestedBytes()).isEqualTo(1L << 40));
        assertThat(e.getMessage())
                .contains("cuMemAlloc_v2")
                .contains("2 CUDA_ERROR_OUT_OF_MEMORY")
                .contains(String.valueOf(1L << 40));
    }

    @Test
    void out_of_memory_without_a_size_still_is_DeviceOutOfMemoryException() {
        assertThat(errors.toException("cuMemAllocHost_v2", 2)).isInstanceOf(DeviceOutOfMemoryException.class);
    }

    @Test
    void an_unknown_code_becomes_a_DriverException_with_a_generated_name() {
        GraphRTException e = errors.toException("cuLaunchKernel", 12345);

        assertThat(e).isInstanceOfSatisfying(DriverException.class, d -> {
            assertThat(d.code()).isEqualTo(12345);
            assertThat(d.codeName()).isEqualTo("CUresult(12345)");
        });
        assertThat(e.getMessage()).isEqualTo("cuLaunchKernel failed: 12345 CUresult(12345)");
    }

    @Test
    void a_known_ordinary_failure_becomes_a_DriverException_with_its_name() {
        GraphRTException e = errors.toException("cuModuleGetFunction", 500);

        assertThat(e).isInstanceOf(DriverException.class);
        assertThat(e.getMessage()).isEqualTo("cuModuleGetFunction failed: 500 CUDA_ERROR_NOT_FOUND");
    }

    @Test
    void a_sticky_error_becomes_a_DeviceLostException_naming_the_call_and_code() {
        for (int code : new int[] {700, 702, 709, 710, 714, 715, 716, 717, 718, 719}) {
            assertThat(HardwareGraphErrors.isSticky(code)).as("code %d", code).isTrue();
        }
        assertThat(HardwareGraphErrors.isSticky(701))
                .as("too many resources is not sticky")
                .isFalse();
        GraphRTException e = errors.toException("cuStreamSynchronize", 700);

        assertThat(e)
                .isInstanceOf(dev.graphrt.api.DeviceLostException.class)
                .hasMessageStartingWith(
                        "cuStreamSynchronize failed: 700 CUDA_ERROR_ILLEGAL_ADDRESS: a sticky device error");
        assertThat(((dev.graphrt.api.DeviceLostException) e).operation()).isEqualTo("cuStreamSynchronize");
    }

    @Test
    void the_capture_family_spans_900_to_910() {
        assertThat(HardwareGraphErrors.isCaptureFailure(899)).isFalse();
        assertThat(HardwareGraphErrors.isCaptureFailure(900)).isTrue();
        assertThat(HardwareGraphErrors.isCaptureFailure(910)).isTrue();
        assertThat(HardwareGraphErrors.isCaptureFailure(911)).isFalse();
    }

    @Test
    void the_driver_mapper_names_codes_from_the_table_when_no_driver_answers() {
        assertThat(CudaDriver.resultName(901)).isEqualTo("CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
        assertThat(CudaDriver.ERRORS.toException("cuStreamSynchronize", 900))
                .isInstanceOf(CaptureInvalidatedException.class)
                .hasMessageContaining("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    }
}
