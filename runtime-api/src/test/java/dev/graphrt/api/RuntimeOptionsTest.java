package dev.graphrt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuntimeOptionsTest {

    @Test
    void the_builder_starts_from_the_defaults_and_sets_only_what_it_is_told() {
        RuntimeOptions defaults = RuntimeOptions.defaults();
        assertThat(RuntimeOptions.builder().build()).isEqualTo(defaults);

        RuntimeOptions built = RuntimeOptions.builder()
                .backend("cpu")
                .deviceIndex(1)
                .pageBytes(1 << 16)
                .maxPooledBytes(1 << 12)
                .metadataCacheEntries(0)
                .metadataMaxEntryBytes(64)
                .backendOption("cpu.threads", "2")
                .waitTimeout(Duration.ofSeconds(5))
                .poolReserveBytes(0)
                .stagingBytes(4096)
                .checked(true)
                .build();
        assertThat(built)
                .isEqualTo(new RuntimeOptions(
                        Optional.of("cpu"),
                        1,
                        1 << 16,
                        1 << 12,
                        0,
                        64,
                        Map.of("cpu.threads", "2"),
                        Duration.ofSeconds(5),
                        0,
                        4096,
                        true));
    }

    @Test
    void to_builder_keeps_every_component_and_the_value_stays_unchanged() {
        RuntimeOptions original = RuntimeOptions.builder()
                .backend("wgpu")
                .backendOption("wgpu.backend", "vulkan")
                .checked(true)
                .build();
        assertThat(original.toBuilder().build()).isEqualTo(original);

        RuntimeOptions changed = original.toBuilder()
                .backendOption("wgpu.replayChunk", "64")
                .anyBackend()
                .build();
        assertThat(changed.backend()).isEmpty();
        assertThat(changed.backendOptions())
                .containsOnly(Map.entry("wgpu.backend", "vulkan"), Map.entry("wgpu.replayChunk", "64"));
        assertThat(original.backend()).contains("wgpu");
        assertThat(original.backendOptions()).containsOnly(Map.entry("wgpu.backend", "vulkan"));
    }

    @Test
    void the_withers_are_the_builder_in_short() {
        RuntimeOptions d = RuntimeOptions.defaults();
        assertThat(d.device("cuda", 1))
                .isEqualTo(d.toBuilder().backend("cuda").deviceIndex(1).build());
        assertThat(d.pool(1 << 16, 1 << 12))
                .isEqualTo(
                        d.toBuilder().pageBytes(1 << 16).maxPooledBytes(1 << 12).build());
        assertThat(d.metadataCache(8, 16))
                .isEqualTo(d.toBuilder()
                        .metadataCacheEntries(8)
                        .metadataMaxEntryBytes(16)
                        .build());
        assertThat(d.poolReserve(1)).isEqualTo(d.toBuilder().poolReserveBytes(1).build());
        assertThat(d.stagingLimit(2)).isEqualTo(d.toBuilder().stagingBytes(2).build());
        assertThat(d.checked(!d.checked()).checked()).isNotEqualTo(d.checked());
    }

    @Test
    void build_checks_the_values_as_the_constructor_does() {
        assertThatThrownBy(() -> RuntimeOptions.builder().deviceIndex(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deviceIndex");
        assertThatThrownBy(() -> RuntimeOptions.builder()
                        .pageBytes(1 << 12)
                        .maxPooledBytes(1 << 13)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPooledBytes");
        assertThatThrownBy(() -> RuntimeOptions.builder().backendOption("k", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value");
    }
}
