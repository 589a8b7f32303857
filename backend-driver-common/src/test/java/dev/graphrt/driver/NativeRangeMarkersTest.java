package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NativeRangeMarkersTest {

    @Test
    void no_loadable_library_gives_the_no_op_markers() {
        assertThat(NativeRangeMarkers.load(
                        List.of("libgraphrt-no-such-profiler.so.1", "/nonexistent/libx.so"),
                        "nvtxRangeStartA",
                        "nvtxRangeEnd"))
                .isSameAs(PhaseMarkers.NONE);
    }

    @Test
    void a_library_lacking_either_call_is_passed_over() {
        assertThat(NativeRangeMarkers.load(List.of("libc.so.6"), "nvtxRangeStartA", "nvtxRangeEnd"))
                .isSameAs(PhaseMarkers.NONE);
    }

    /**
     * libc's strlen (a C string in, a 64-bit integer out) and srand (an integer in, nothing out) have the shapes of
     * a range's start and end: bound as such they prove the binding, the C strings and the calls, with no profiler.
     */
    @Test
    void a_library_with_both_calls_is_bound_and_its_ranges_open_and_close_for_many_names() {
        PhaseMarkers markers =
                NativeRangeMarkers.load(List.of("libgraphrt-no-such-profiler.so.1", "libc.so.6"), "strlen", "srand");

        assertThat(markers).isInstanceOf(NativeRangeMarkers.class);
        assertThat(((NativeRangeMarkers) markers).origin()).isEqualTo("libc.so.6");
        for (int i = 0; i < 2000; i++) { // past the bound of cached names: later names are made per call
            markers.range("graphrt cuda stream " + i + ": replay").close();
        }
        markers.range("graphrt cuda stream 0: replay").close();
    }
}
