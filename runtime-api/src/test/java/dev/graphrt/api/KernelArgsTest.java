package dev.graphrt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KernelArgsTest {

    @Test
    void users_get_a_copy_of_the_info_words_and_the_core_copies_them_into_an_array_of_its_own() {
        KernelArgs args = KernelArgs.of().info(3, 4).infoFloat(1.5f);
        int[] copy = args.infoWords();
        copy[0] = 99;
        assertThat(args.infoWords()).containsExactly(3, 4, Float.floatToRawIntBits(1.5f));
        assertThat(args.infoWordCount()).isEqualTo(3);
        int[] scratch = new int[8];
        Arrays.fill(scratch, -1);
        args.copyInfoWords(scratch);
        assertThat(scratch).startsWith(3, 4, Float.floatToRawIntBits(1.5f)).endsWith(-1, -1, -1, -1, -1);
        assertThat(KernelArgs.of().infoWordCount()).isZero();
    }

    @Test
    void a_destination_too_short_is_refused_naming_it() {
        assertThatThrownBy(() -> KernelArgs.of().info(1, 2, 3).copyInfoWords(new int[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dst:");
    }
}
