package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.GraphNotRelaunchableException;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipGraphNodeTypesTest {
    private final HipGraphNodeTypes rocm52 = new HipGraphNodeTypes(50_221_153);
    private final HipGraphNodeTypes rocm62 = new HipGraphNodeTypes(60_241_134);

    @Test
    void ROCm_5_2_counts_node_types_from_1_and_ROCm_5_3_on_from_0() {
        assertThat(rocm52.zeroBased()).isFalse();
        assertThat(new HipGraphNodeTypes(50_300_000).zeroBased()).isTrue();
        assertThat(rocm62.zeroBased()).isTrue();
    }

    @Test
    void a_kernel_node_is_type_1_under_ROCm_5_2_and_type_0_from_ROCm_5_3_on() {
        assertThat(rocm52.kernel()).isEqualTo(1);
        assertThat(rocm62.kernel()).isZero();
    }

    @Test
    void under_ROCm_5_2_every_declared_node_type_is_accepted_and_anything_else_refused() {
        assertThatCode(() -> rocm52.check(new int[] {1, 2, 3, 9, 10, 11})).doesNotThrowAnyException();

        assertThatThrownBy(() -> rocm52.check(new int[] {1, 12, 1}))
                .isInstanceOf(GraphNotRelaunchableException.class)
                .hasMessageContaining("1 node(s) of type 12")
                .hasMessageContaining("not a node type of HIP 5.2.21153")
                .hasMessageContaining("allocate before beginCapture()");
        assertThat(rocm52.refuses(0)).isTrue();
    }

    @Test
    void from_ROCm_5_5_memory_allocation_and_free_nodes_are_refused_as_in_cuda() {
        assertThatCode(() -> rocm62.check(new int[] {0, 1, 2, 5, 12, 13})).doesNotThrowAnyException();

        assertThatThrownBy(() -> rocm62.check(new int[] {0, 10, 0, 11}))
                .isInstanceOf(GraphNotRelaunchableException.class)
                .hasMessageContaining("2 node(s) of type 10, 11")
                .hasMessageContaining("hipMallocAsync");
    }
}
