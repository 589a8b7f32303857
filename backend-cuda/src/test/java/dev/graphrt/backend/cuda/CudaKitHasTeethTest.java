package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;

import com.google.inject.util.Modules;
import dev.graphrt.api.Capability;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.core.GraphRT;
import dev.graphrt.core.GraphRTModule;
import dev.graphrt.core.ProviderSource;
import dev.graphrt.driver.KernelToolchain;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Proof, on a real device, that group 31 catches a cuda backend that launches every kernel as a programmatic
 * dependent, not only those that opted in: the group runs against such a backend and must fail, naming the test of a
 * plain kernel launched right after a slow producer that lets its dependents start at once. Needs a device of
 * compute capability 9.0 or more; skipped elsewhere (no libcuda in CI).
 */
class CudaKitHasTeethTest {
    /** The real toolchain, except that every kernel is launched as a programmatic dependent. */
    private record EveryKernelStartsEarly(KernelToolchain real) implements KernelToolchain {
        @Override
        public boolean launchesAsDependent(KernelSource source) {
            return true;
        }

        @Override
        public String dependentLaunchPrelude() {
            return real.dependentLaunchPrelude();
        }

        @Override
        public Dialect dialect() {
            return real.dialect();
        }

        @Override
        public String missingSourceMessage(String entryPoint) {
            return real.missingSourceMessage(entryPoint);
        }

        @Override
        public String imageKey() {
            return real.imageKey();
        }

        @Override
        public byte[] compile(String entryPoint, String text) {
            return real.compile(entryPoint, text);
        }

        @Override
        public MemorySegment loadModule(String entryPoint, byte[] image) {
            return real.loadModule(entryPoint, image);
        }

        @Override
        public MemorySegment function(MemorySegment module, String entryPoint) {
            return real.function(module, entryPoint);
        }

        @Override
        public int parameterCount(String entryPoint, MemorySegment function) {
            return real.parameterCount(entryPoint, function);
        }

        @Override
        public void unloadModule(MemorySegment module) {
            real.unloadModule(module);
        }
    }

    /** The kit over the broken backend; run only through the launcher below, which expects it to fail. */
    static class EveryKernelStartsEarlyKit extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            BackendProvider provider = new BackendProvider() {
                @Override
                public String name() {
                    return "cuda";
                }

                @Override
                public int priority() {
                    return 0;
                }

                @Override
                public Availability probe() {
                    return Availability.available("cuda, every kernel a programmatic dependent");
                }

                @Override
                public Backend open(BackendConfig config) {
                    return CudaBackend.open(config, EveryKernelStartsEarly::new);
                }
            };
            return GraphRT.open(Modules.override(new GraphRTModule(RuntimeOptions.defaults()))
                    .with(binder -> binder.bind(ProviderSource.class).toInstance(() -> List.of(provider))));
        }
    }

    /** {@code cuda-teeth.md} in the conformance directory: which tests of group 31 caught the broken backend. */
    private static void writeReport(List<String> caught, List<String> passed) {
        Path dir = Path.of(System.getProperty("graphrt.conformance.dir", "target/conformance"));
        String md = "# Group 31 against a cuda backend that launches every kernel as a programmatic dependent\n\n"
                + "- commit: " + System.getProperty("graphrt.commit", "unknown") + "\n"
                + "- caught it (" + caught.size() + "): " + String.join(", ", caught) + "\n"
                + "- passed anyway (" + passed.size() + "): " + String.join(", ", passed) + "\n";
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("cuda-teeth.md"), md);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void group_31_catches_a_cuda_backend_that_lets_kernels_that_did_not_opt_in_start_early() {
        Assumptions.assumeTrue(
                CudaLibrary.failure().isEmpty(),
                () -> "no libcuda here: " + CudaLibrary.failure().orElse(""));
        try (GraphRuntime real = GraphRT.open(RuntimeOptions.defaults().backend("cuda"))) {
            Assumptions.assumeTrue(
                    real.capabilities().contains(Capability.PROGRAMMATIC_DEPENDENT_LAUNCH),
                    "the device has no programmatic dependent launch (compute capability below 9.0)");
        }
        List<String> caught = new ArrayList<>();
        List<String> passed = new ArrayList<>();
        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectNestedClass(
                                        List.of(EveryKernelStartsEarlyKit.class.getName()),
                                        CaptureConformanceKit.class.getName() + "$ProgrammaticDependentLaunch"))
                                .configurationParameter("graphrt.conformance.report", "false")
                                .build(),
                        new TestExecutionListener() {
                            @Override
                            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                                if (!test.isTest()) {
                                    return;
                                }
                                String name = test.getDisplayName().replace("()", "");
                                switch (result.getStatus()) {
                                    case SUCCESSFUL -> passed.add(name);
                                    case FAILED -> caught.add(name);
                                    case ABORTED -> {}
                                }
                            }
                        });
        writeReport(caught, passed);
        assertThat(passed.size() + caught.size()).as("the group ran").isGreaterThanOrEqualTo(8);
        assertThat(caught)
                .as(
                        "the broken backend fails the test of a plain kernel after an early-starting producer (passed: %s)",
                        passed)
                .contains(
                        "a_kernel_that_did_not_opt_in_sees_all_of_a_slow_producer_that_let_its_dependents_start_at_once");
    }
}
