package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CudaBackendProviderTest {
    private final CudaBackendProvider provider = new CudaBackendProvider();

    @Test
    void it_is_named_cuda_and_ranks_above_the_cpu_backend() {
        assertThat(provider.name()).isEqualTo("cuda");
        assertThat(provider.priority()).isEqualTo(100);
    }

    @Test
    void the_service_loader_finds_it() {
        assertThat(ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::type))
                .contains(CudaBackendProvider.class);
    }

    @Test
    void probing_never_throws_and_always_explains_itself() {
        assertThatCode(provider::probe).doesNotThrowAnyException();
        Availability first = provider.probe();
        Availability second = provider.probe();

        assertThat(first.detail()).isNotBlank();
        assertThat(second).isEqualTo(first);
    }

    @Test
    void without_an_nvidia_driver_the_probe_is_unavailable_and_names_libcuda() {
        assumeTrue(CudaLibrary.failure().isPresent(), "libcuda.so.1 is installed here; CudaDeviceSmokeTest covers it");

        Availability availability = provider.probe();

        assertThat(availability.available()).isFalse();
        assertThat(availability.detail()).contains("libcuda.so.1");
        assertThat(availability.toString()).startsWith("unavailable: libcuda.so.1 not found");
    }

    @Test
    void every_symbol_returns_a_CUresult_and_is_named_as_libcuda_exports_it() {
        for (CudaNative.Symbol symbol : CudaNative.Symbol.values()) {
            assertThat(symbol.descriptor().returnLayout()).isPresent();
            assertThat(symbol.name()).startsWith("cu");
        }
        assertThat(CudaNative.Symbol.valueOf("cuMemAlloc_v2").required()).isTrue();
        assertThat(CudaNative.Symbol.valueOf("cuStreamBeginCapture_v2").required())
                .isTrue();
        assertThat(CudaNative.Symbol.valueOf("cuGraphInstantiateWithFlags").required())
                .isTrue();
    }
}
