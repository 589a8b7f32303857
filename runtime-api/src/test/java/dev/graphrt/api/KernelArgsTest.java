package dev.graphrt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.spi.internal.ApiAccess;
import org.junit.jupiter.api.Test;

class KernelArgsTest {

    @Test
    void users_get_a_copy_of_the_info_words_and_the_core_the_words_themselves() {
        KernelArgs args = KernelArgs.of().info(3, 4).infoFloat(1.5f);
        int[] copy = args.infoWords();
        copy[0] = 99;
        assertThat(args.infoWords()).containsExactly(3, 4, Float.floatToRawIntBits(1.5f));
        assertThat(ApiAccess.infoWords(args)).as("no copy").isSameAs(ApiAccess.infoWords(args))
                .containsExactly(3, 4, Float.floatToRawIntBits(1.5f));
        assertThat(ApiAccess.infoWords(KernelArgs.of())).isEmpty();
    }

    @Test
    void nobody_but_kernel_args_registers_the_accessor() {
        assertThatThrownBy(() -> ApiAccess.register(args -> new int[0]))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only KernelArgs");
    }
}
