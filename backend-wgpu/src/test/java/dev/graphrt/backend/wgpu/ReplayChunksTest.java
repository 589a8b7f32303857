package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ReplayChunksTest {

    @Test
    void on_a_gpu_adaptive_chunks_split_a_long_recording_evenly_into_chunks_of_at_most_128() {
        int[] ends = ReplayChunks.adaptive(false).ends(1000);

        assertThat(ends).hasSize(8).endsWith(1000);
        assertThat(ends[0]).isEqualTo(125);
    }

    @Test
    void on_a_gpu_adaptive_chunks_keep_a_short_recording_in_one_submission() {
        assertThat(ReplayChunks.adaptive(false).ends(100)).containsExactly(100);
        assertThat(ReplayChunks.adaptive(false).ends(150)).containsExactly(75, 150);
    }

    @Test
    void on_a_cpu_adapter_a_thousand_launches_stay_in_one_submission() {
        assertThat(ReplayChunks.adaptive(true).ends(1000)).containsExactly(1000);
    }

    @Test
    void a_fixed_size_cuts_every_chunk_at_that_size_and_the_last_at_the_end() {
        assertThat(new ReplayChunks(32, 32).ends(100)).containsExactly(32, 64, 96, 100);
    }

    @Test
    void an_empty_recording_has_no_chunk() {
        assertThat(ReplayChunks.adaptive(false).ends(0)).isEmpty();
    }

    @Test
    void the_option_reads_auto_or_a_positive_count_and_names_itself_when_wrong() {
        assertThat(ReplayChunks.parse("wgpu.replayChunk", null, false)).isEqualTo(ReplayChunks.adaptive(false));
        assertThat(ReplayChunks.parse("wgpu.replayChunk", " Auto ", true)).isEqualTo(ReplayChunks.adaptive(true));
        assertThat(ReplayChunks.parse("wgpu.replayChunk", "64", true).ends(100)).containsExactly(64, 100);
        assertThatThrownBy(() -> ReplayChunks.parse("wgpu.replayChunk", "0", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wgpu.replayChunk");
        assertThatThrownBy(() -> ReplayChunks.parse("wgpu.replayChunk", "many", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'many'");
    }
}
