package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ReplayChunksTest {

    @Test
    void adaptive_chunks_split_a_long_recording_evenly_into_chunks_of_at_most_the_target() {
        int[] ends = ReplayChunks.adaptive().ends(1000);

        assertThat(ends).hasSize(8).endsWith(1000);
        assertThat(ends[0]).isEqualTo(125);
    }

    @Test
    void adaptive_chunks_keep_a_short_recording_in_one_submission() {
        assertThat(ReplayChunks.adaptive().ends(100)).containsExactly(100);
        assertThat(ReplayChunks.adaptive().ends(150)).containsExactly(75, 150);
    }

    @Test
    void a_fixed_size_cuts_every_chunk_at_that_size_and_the_last_at_the_end() {
        assertThat(new ReplayChunks(32).ends(100)).containsExactly(32, 64, 96, 100);
    }

    @Test
    void an_empty_recording_has_no_chunk() {
        assertThat(ReplayChunks.adaptive().ends(0)).isEmpty();
    }

    @Test
    void the_option_reads_auto_or_a_positive_count_and_names_itself_when_wrong() {
        assertThat(ReplayChunks.parse("wgpu.replayChunk", null)).isEqualTo(ReplayChunks.adaptive());
        assertThat(ReplayChunks.parse("wgpu.replayChunk", " Auto ")).isEqualTo(ReplayChunks.adaptive());
        assertThat(ReplayChunks.parse("wgpu.replayChunk", "64")).isEqualTo(new ReplayChunks(64));
        assertThatThrownBy(() -> ReplayChunks.parse("wgpu.replayChunk", "0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wgpu.replayChunk");
        assertThatThrownBy(() -> ReplayChunks.parse("wgpu.replayChunk", "many"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'many'");
    }
}
