package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.spi.BackendConfig;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HiprtcLocatorTest {
    private static BackendConfig options(Map<String, String> options) {
        return new BackendConfig(0, options);
    }

    @Test
    void the_backend_option_wins_over_the_environment_and_is_authoritative() {
        HiprtcLocator locator = new HiprtcLocator(
                options(Map.of(HiprtcLocator.OPTION, "/nonexistent/libhiprtc.so")),
                Map.of(HiprtcLocator.ENV, "/elsewhere/libhiprtc.so")::get,
                Optional::empty);

        HiprtcLocator.Located located = locator.locate();

        assertThat(located.hiprtc()).isEmpty();
        assertThat(located.failure())
                .startsWith("hiprtc could not be loaded from /nonexistent/libhiprtc.so (set by the "
                        + "backend option hip.hiprtc)");
    }

    @Test
    void the_environment_variable_is_used_when_no_option_is_given() {
        HiprtcLocator locator = new HiprtcLocator(
                options(Map.of()), Map.of(HiprtcLocator.ENV, "/elsewhere/libhiprtc.so")::get, Optional::empty);

        assertThat(locator.locate().failure())
                .contains("/elsewhere/libhiprtc.so")
                .contains("environment variable GRAPHRT_HIPRTC");
    }

    @Test
    void without_a_runtime_that_exports_it_and_without_libhiprtc_the_failure_says_how_to_point_at_one() {
        HiprtcLocator.Located located =
                new HiprtcLocator(options(Map.of()), Map.<String, String>of()::get, Optional::empty).locate();
        assumeTrue(located.hiprtc().isEmpty(), "a libhiprtc is installed here: " + located);

        assertThat(located.failure())
                .startsWith("hiprtc not found")
                .contains(HiprtcLocator.OPTION)
                .contains(HiprtcLocator.ENV);
    }

    @Test
    void ROCm_5_runtimes_export_hiprtc_themselves_and_it_is_taken_from_there() {
        assumeTrue(
                HipLibrary.failure().isEmpty() && HiprtcLocator.exportsHiprtc(HipLibrary.lookup()),
                "no HIP runtime that exports hiprtc is loaded here");

        HiprtcLocator.Located located = new HiprtcLocator(
                        options(Map.of()), Map.<String, String>of()::get, () -> Optional.of(HipLibrary.lookup()))
                .locate();

        assertThat(located.hiprtc())
                .hasValueSatisfying(h -> assertThat(h.origin()).isEqualTo(HipLibrary.origin()));
        assertThat(located.hiprtc().orElseThrow().errorString(Hiprtc.ERROR_COMPILATION))
                .isEqualTo("HIPRTC_ERROR_COMPILATION");
    }
}
