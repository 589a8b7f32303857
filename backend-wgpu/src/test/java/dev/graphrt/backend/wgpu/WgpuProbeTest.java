package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Capability;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.SoftwareGraphs;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuProbeTest {

    @Test
    void the_provider_is_found_by_the_service_loader_as_wgpu_with_priority_50() {
        assertThat(ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get))
                .filteredOn(p -> p instanceof WgpuBackendProvider)
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.name()).isEqualTo("wgpu");
                    assertThat(p.priority()).isEqualTo(50);
                });
    }

    @Test
    void a_missing_library_makes_the_probe_say_unavailable_with_the_path() {
        String missing = "/nonexistent/graphrt/libwebgpu_wrapper.so";

        Availability availability = new WgpuBackendProvider(Map.of("wgpu.library", missing)).probe();

        assertThat(availability.available()).isFalse();
        assertThat(availability.detail()).contains(missing).contains("not found");
        assertThat(availability.toString()).startsWith("unavailable: ");
    }

    @Test
    void a_file_that_is_not_a_webgpu_library_makes_the_probe_say_unavailable() {
        Availability availability = new WgpuBackendProvider(Map.of("wgpu.library", "pom.xml")).probe();

        assertThat(availability.available()).isFalse();
        assertThat(availability.detail()).contains("pom.xml");
    }

    @Test
    void the_probe_says_available_and_ranks_a_cpu_adapter_below_the_cpu_backend() {
        WgpuTestSupport.assumeLibraryPresent();

        Availability availability = new WgpuBackendProvider().probe();

        assertThat(availability.available()).as(availability.toString()).isTrue();
        try (WgpuBackend backend = WgpuTestSupport.open()) {
            if (backend.adapterInfo().isCpu()) {
                assertThat(availability.priorityOverride()).hasValue(WgpuBackendProvider.CPU_ADAPTER_PRIORITY);
                assertThat(availability.priorityOverride().getAsInt()).isLessThan(0);
                assertThat(availability.detail()).contains("CPU adapter");
            } else {
                assertThat(availability.priorityOverride()).isEmpty();
            }
        }
    }

    @Test
    void the_opened_backend_describes_its_device_and_declares_honest_capabilities() {
        try (WgpuBackend backend = WgpuTestSupport.open()) {
            assertThat(backend.name()).isEqualTo("wgpu");
            assertThat(backend.device().backend()).isEqualTo("wgpu");
            assertThat(backend.device().name()).isNotBlank();
            try (BackendStream stream = backend.openStream()) {
                assertThat(stream.capture()).as("software graphs").isInstanceOf(SoftwareGraphs.class);
            }
            assertThat(backend.capabilities())
                    .contains(Capability.MID_CAPTURE_ALLOCATION)
                    .doesNotContain(Capability.RECORDS_WRITES, Capability.NESTED_GRAPHS);
            assertThat(backend.memory().alignment()).isEqualTo(256);
        }
    }

    @Test
    void an_unknown_adapter_choice_is_rejected_naming_the_option() {
        WgpuTestSupport.assumeLibraryPresent();

        Availability availability = new WgpuBackendProvider(Map.of("wgpu.backend", "metal-on-linux")).probe();

        assertThat(availability.available()).isFalse();
        assertThat(availability.detail()).contains("wgpu.backend");
    }
}
