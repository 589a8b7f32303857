package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The one table of result codes: each column keeps its API's names, and the codes the mapping relies on are in both. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ResultCodeNamesTest {
    @Test
    void the_codes_HardwareGraphErrors_maps_are_named_in_both_columns() {
        for (int code : new int[] {
            HardwareGraphErrors.SUCCESS,
            HardwareGraphErrors.INVALID_VALUE,
            HardwareGraphErrors.OUT_OF_MEMORY,
            HardwareGraphErrors.ILLEGAL_STATE,
            HardwareGraphErrors.NOT_FOUND,
            HardwareGraphErrors.NOT_READY,
            700,
            719,
            900,
            901,
            908,
            910
        }) {
            assertThat(ResultCodeNames.CUDA).as("CUDA " + code).containsKey(code);
            assertThat(ResultCodeNames.HIP).as("HIP " + code).containsKey(code);
        }
    }

    @Test
    void each_column_keeps_its_own_names_and_its_own_codes() {
        assertThat(ResultCodeNames.CUDA.get(2)).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
        assertThat(ResultCodeNames.HIP.get(2)).isEqualTo("hipErrorOutOfMemory");
        assertThat(ResultCodeNames.CUDA.get(999)).isEqualTo("CUDA_ERROR_UNKNOWN");
        assertThat(ResultCodeNames.HIP.get(999)).isEqualTo("hipErrorUnknown");
        assertThat(ResultCodeNames.CUDA).as("CUDA's timeout").containsKey(909);
        assertThat(ResultCodeNames.HIP).as("HIP has no 909").doesNotContainKey(909);
        assertThat(ResultCodeNames.HIP).as("HIP's runtime codes").containsKeys(1052, 1053);
        assertThat(ResultCodeNames.CUDA).doesNotContainKeys(1052, 1053);
        assertThat(ResultCodeNames.CUDA.values()).allMatch(name -> name.startsWith("CUDA_"));
        assertThat(ResultCodeNames.HIP.values()).allMatch(name -> name.startsWith("hip"));
    }

    @Test
    void the_columns_hold_as_many_codes_as_the_backends_tables_did() {
        assertThat(ResultCodeNames.CUDA).hasSize(47);
        assertThat(ResultCodeNames.HIP).hasSize(73);
    }
}
