package dev.graphrt.backend.wgpu;

import com.google.inject.util.Modules;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.core.GraphRT;
import dev.graphrt.core.GraphRTModule;
import dev.graphrt.core.ProviderSource;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The wgpu backend runs the whole conformance kit (on lavapipe here and in CI, on the GPU's Vulkan driver there).
 * Runtimes are opened through a provider that remembers the backend it opened last, so group 21 can lose that
 * backend's device on purpose (WGSL has no trap).
 */
class WgpuConformanceTest extends CaptureConformanceKit {
    private WgpuBackend lastOpened;

    @Override
    protected GraphRuntime openRuntime() {
        WgpuTestSupport.assumeLibraryPresent();
        WgpuBackendProvider real = new WgpuBackendProvider();
        Availability availability = real.probe();
        Assumptions.assumeTrue(availability.available(), () -> "wgpu backend unavailable here: " + availability);
        BackendProvider remembering = new BackendProvider() {
            @Override
            public String name() {
                return real.name();
            }

            @Override
            public int priority() {
                return real.priority();
            }

            @Override
            public Availability probe() {
                return real.probe();
            }

            @Override
            public Backend open(BackendConfig config) {
                WgpuBackend backend = (WgpuBackend) real.open(config);
                lastOpened = backend;
                return backend;
            }
        };
        return GraphRT.open(
                Modules.override(new GraphRTModule(RuntimeOptions.defaults().backend("wgpu")))
                        .with(binder -> binder.bind(ProviderSource.class).toInstance(() -> List.of(remembering))));
    }

    @Override
    protected void loseDevice() {
        WgpuTestSupport.forceLoss(lastOpened, "lost on purpose by the kit");
    }
}
