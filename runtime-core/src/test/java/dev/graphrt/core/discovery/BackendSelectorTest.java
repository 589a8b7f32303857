package dev.graphrt.core.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackendSelectorTest {
    private final BackendSelector selector = new BackendSelector();

    record Fake(String name, int priority, Availability availability) implements BackendProvider {
        @Override
        public Availability probe() {
            return availability;
        }

        @Override
        public Backend open(BackendConfig config) {
            throw new UnsupportedOperationException();
        }
    }

    private static final Fake CPU = new Fake("cpu", 0, Availability.available("java"));
    private static final Fake CUDA_MISSING = new Fake("cuda", 100, Availability.unavailable("libcuda.so.1 not found"));
    private static final Fake WGPU_ON_CPU_ADAPTER = new Fake("wgpu", 50, Availability.available("lavapipe", -10));

    @Test
    void the_highest_priority_available_backend_wins() {
        assertThat(selector.select(
                                List.of(CPU, CUDA_MISSING, new Fake("gpu", 60, Availability.available("x"))),
                                Optional.empty(),
                                "")
                        .provider()
                        .name())
                .isEqualTo("gpu");
    }

    @Test
    void a_probe_may_lower_its_priority_below_the_cpu_backend() {
        assertThat(selector.select(List.of(WGPU_ON_CPU_ADAPTER, CPU), Optional.empty(), "")
                        .provider()
                        .name())
                .isEqualTo("cpu");
        assertThat(selector.select(List.of(WGPU_ON_CPU_ADAPTER, CPU), Optional.of("wgpu"), "test")
                        .provider()
                        .name())
                .as("still selectable by name")
                .isEqualTo("wgpu");
    }

    @Test
    void a_forced_unavailable_backend_fails_with_every_probe_result() {
        assertThatThrownBy(() -> selector.select(List.of(CPU, CUDA_MISSING), Optional.of("cuda"), "-Dgraphrt.backend"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("Backend 'cuda' was requested (-Dgraphrt.backend) but is unavailable: "
                        + "libcuda.so.1 not found")
                .hasMessageContaining("cpu (priority 0): available: java")
                .hasMessageContaining("cuda (priority 100): unavailable: libcuda.so.1 not found");
    }

    @Test
    void a_forced_unknown_name_lists_the_providers() {
        assertThatThrownBy(() -> selector.select(List.of(CPU), Optional.of("metal"), "test"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("no provider has that name")
                .hasMessageContaining("cpu (priority 0)");
    }

    @Test
    void no_provider_at_all_says_which_module_to_add() {
        assertThatThrownBy(() -> selector.select(List.of(), Optional.empty(), ""))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("graphrt-backend-cpu");
    }

    @Test
    void nothing_available_lists_every_reason() {
        assertThatThrownBy(() -> selector.select(List.of(CUDA_MISSING), Optional.empty(), ""))
                .isInstanceOf(BackendUnavailableException.class)
                .satisfies(e -> assertThat(((BackendUnavailableException) e).probeResults())
                        .containsExactly("cuda (priority 100): unavailable: libcuda.so.1 not found"));
    }

    @Test
    void a_tie_at_the_top_is_broken_by_name_deterministically() {
        Fake b = new Fake("b", 5, Availability.available("b"));
        Fake a = new Fake("a", 5, Availability.available("a"));
        assertThat(selector.select(List.of(b, a), Optional.empty(), "")
                        .provider()
                        .name())
                .isEqualTo("a");
        assertThat(selector.select(List.of(a, b), Optional.empty(), "")
                        .provider()
                        .name())
                .isEqualTo("a");
    }

    @Test
    void a_probe_that_throws_counts_as_unavailable() {
        BackendProvider throwing = new BackendProvider() {
            public String name() {
                return "throwing";
            }

            public int priority() {
                return 300;
            }

            public Availability probe() {
                throw new UnsatisfiedLinkError("no lib");
            }

            public Backend open(BackendConfig config) {
                throw new UnsupportedOperationException();
            }
        };
        assertThat(selector.select(List.of(throwing, CPU), Optional.empty(), "")
                        .provider()
                        .name())
                .isEqualTo("cpu");
        assertThat(selector.probeAll(List.of(throwing)).get(0).line())
                .contains("probe threw")
                .contains("no lib");
    }

    @Test
    void a_forced_available_backend_is_the_only_one_probed() {
        int[] probes = {0};
        BackendProvider counting = new BackendProvider() {
            public String name() {
                return "gpu";
            }

            public int priority() {
                return 100;
            }

            public Availability probe() {
                probes[0]++;
                return Availability.available("x");
            }

            public Backend open(BackendConfig config) {
                throw new UnsupportedOperationException();
            }
        };
        assertThat(selector.select(List.of(counting, CPU), Optional.of("cpu"), "test")
                        .provider()
                        .name())
                .isEqualTo("cpu");
        assertThat(probes[0]).as("no other native library is touched").isZero();
    }
}
