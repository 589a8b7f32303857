package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.spi.BackendConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CollectiveLibraryTest {
    private static final List<String> DEFAULTS = List.of("libgraphrt-no-such-nccl.so.2", "/nonexistent/libnccl.so.2");

    @Test
    void no_loadable_candidate_is_reported_naming_every_candidate_tried() {
        CollectiveLibrary.Located located = CollectiveLibrary.locate("NCCL", DEFAULTS);

        assertThat(located.library()).isEmpty();
        assertThat(located.failure())
                .startsWith("NCCL not found")
                .contains("libgraphrt-no-such-nccl.so.2", "/nonexistent/libnccl.so.2");
    }

    @Test
    void a_library_without_the_nccl_calls_is_passed_over_naming_what_it_lacks() {
        CollectiveLibrary.Located located = CollectiveLibrary.locate("NCCL", List.of("libc.so.6"));

        assertThat(located.library()).isEmpty();
        assertThat(located.failure()).contains("libc.so.6 lacks ncclGetVersion", "ncclAllReduce", "2.9 or later");
    }

    @Test
    void the_option_off_turns_collectives_off_and_names_the_option() {
        CollectiveLibrary.Located located = CollectiveLibrary.configured(
                "NCCL",
                config("cuda.nccl", "off"),
                "cuda.nccl",
                "GRAPHRT_NCCL_LIB",
                name -> "libc.so.6",
                () -> DEFAULTS);

        assertThat(located.library()).isEmpty();
        assertThat(located.failure()).isEqualTo("NCCL turned off by the backend option cuda.nccl");
    }

    @Test
    void an_explicit_option_is_the_only_candidate_and_wins_over_the_variable() {
        CollectiveLibrary.Located located = CollectiveLibrary.configured(
                "NCCL",
                config("cuda.nccl", "/nonexistent/asked/libnccl.so.2"),
                "cuda.nccl",
                "GRAPHRT_NCCL_LIB",
                name -> "/nonexistent/variable/libnccl.so.2",
                () -> DEFAULTS);

        assertThat(located.failure())
                .contains("backend option cuda.nccl", "/nonexistent/asked/libnccl.so.2")
                .doesNotContain("variable", "libgraphrt-no-such-nccl");
    }

    @Test
    void without_an_option_the_variable_is_the_only_candidate() {
        CollectiveLibrary.Located located = CollectiveLibrary.configured(
                "RCCL",
                BackendConfig.defaults(),
                "hip.rccl",
                "GRAPHRT_RCCL_LIB",
                name -> name.equals("GRAPHRT_RCCL_LIB") ? "/nonexistent/variable/librccl.so.1" : null,
                () -> DEFAULTS);

        assertThat(located.failure())
                .contains("environment variable GRAPHRT_RCCL_LIB", "/nonexistent/variable/librccl.so.1")
                .doesNotContain("libgraphrt-no-such-nccl");
    }

    @Test
    void the_defaults_are_not_even_looked_for_when_the_option_or_the_variable_decides() {
        java.util.function.Supplier<List<String>> unwanted = () -> {
            throw new AssertionError("the defaults were looked for");
        };
        CollectiveLibrary.configured(
                "NCCL", config("cuda.nccl", "/nonexistent/a.so"), "cuda.nccl", "GRAPHRT_NCCL_LIB", n -> null, unwanted);
        CollectiveLibrary.configured(
                "NCCL", BackendConfig.defaults(), "cuda.nccl", "GRAPHRT_NCCL_LIB", n -> "/nonexistent/b.so", unwanted);
        assertThat(CollectiveLibrary.configured(
                                "NCCL",
                                config("cuda.nccl", "off"),
                                "cuda.nccl",
                                "GRAPHRT_NCCL_LIB",
                                n -> null,
                                unwanted)
                        .library())
                .isEmpty();
    }

    @Test
    void without_option_or_variable_the_defaults_are_tried_in_order() {
        CollectiveLibrary.Located located = CollectiveLibrary.configured(
                "NCCL", BackendConfig.defaults(), "cuda.nccl", "GRAPHRT_NCCL_LIB", name -> null, () -> DEFAULTS);

        assertThat(located.failure()).contains("tried " + DEFAULTS);
    }

    @Test
    void element_types_and_reductions_map_to_nccls_enum_values() {
        assertThat(CollectiveLibrary.dataType(ElementType.INT32)).isEqualTo(2); // ncclInt32
        assertThat(CollectiveLibrary.dataType(ElementType.FLOAT32)).isEqualTo(7); // ncclFloat32
        assertThat(CollectiveLibrary.redOp(ReduceOp.SUM)).isZero();
        assertThat(CollectiveLibrary.redOp(ReduceOp.PRODUCT)).isEqualTo(1);
        assertThat(CollectiveLibrary.redOp(ReduceOp.MAX)).isEqualTo(2);
        assertThat(CollectiveLibrary.redOp(ReduceOp.MIN)).isEqualTo(3);
    }

    @Test
    void result_codes_have_nccls_names() {
        assertThat(CollectiveLibrary.resultName(0)).isEqualTo("ncclSuccess");
        assertThat(CollectiveLibrary.resultName(5)).isEqualTo("ncclInvalidUsage");
        assertThat(CollectiveLibrary.resultName(7)).isEqualTo("ncclInProgress");
        assertThat(CollectiveLibrary.resultName(42)).isEqualTo("ncclResult 42");
    }

    private static BackendConfig config(String key, String value) {
        return new BackendConfig(0, Map.of(key, value));
    }
}
