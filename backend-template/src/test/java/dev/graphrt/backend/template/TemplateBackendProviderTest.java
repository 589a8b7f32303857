package dev.graphrt.backend.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.core.discovery.BackendSelector;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The template is found, always available, and never the backend that automatic selection picks. */
class TemplateBackendProviderTest {
    /** A shipped backend's provider as discovery sees it; never opened here. */
    record StandIn(String name, int priority, Availability probe) implements BackendProvider {
        @Override
        public Availability probe() {
            return probe;
        }

        @Override
        public Backend open(BackendConfig config) {
            throw new UnsupportedOperationException("a stand-in is never opened");
        }
    }

    private final TemplateBackendProvider template = new TemplateBackendProvider();

    @Test
    void service_loader_finds_the_template_and_its_probe_says_it_is_available() {
        assertThat(ServiceLoader.load(BackendProvider.class).stream()
                        .map(p -> p.get().name()))
                .contains(TemplateBackendProvider.NAME);
        assertThat(template.probe().available()).isTrue();
    }

    @Test
    void automatic_selection_prefers_cpu_and_even_wgpu_on_a_cpu_adapter_over_the_template() {
        BackendProvider cpu = new StandIn("cpu", 0, Availability.available("java"));
        BackendProvider wgpuOnLavapipe = new StandIn("wgpu", 50, Availability.available("lavapipe", -10));
        BackendSelector selector = new BackendSelector();

        assertThat(selector.select(List.of(template, cpu), Optional.empty(), "").provider())
                .isSameAs(cpu);
        assertThat(selector.select(List.of(template, wgpuOnLavapipe), Optional.empty(), "")
                        .provider())
                .isSameAs(wgpuOnLavapipe);
        assertThat(selector.select(List.of(template, cpu), Optional.of("template"), "a test")
                        .provider())
                .isSameAs(template);
    }

    @Test
    void opening_a_second_device_or_a_non_positive_memory_size_is_refused_naming_the_option() {
        assertThatThrownBy(() -> template.open(new BackendConfig(1, Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deviceIndex");
        assertThatThrownBy(() -> template.open(new BackendConfig(0, Map.of("template.memoryBytes", "0"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("template.memoryBytes");
    }
}
