package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.spi.Availability;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipBackendProviderTest {
    /** Where Debian's libamdhip64-5 installs the real ROCm 5.2 runtime. */
    private static final Path DEBIAN_LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5");

    private final HipBackendProvider provider = new HipBackendProvider();

    private static boolean nothingConfigured() {
        return HipLibrary.explicitLibrary(System::getProperty, System::getenv).isEmpty();
    }

    @Test
    void it_is_named_hip_and_ranks_below_cuda_and_above_the_cpu_backend() {
        assertThat(provider.name()).isEqualTo("hip");
        assertThat(provider.priority()).isEqualTo(90);
    }

    @Test
    void the_service_loader_finds_it() {
        assertThat(ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::type))
                .contains(HipBackendProvider.class);
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
    void the_probe_says_no_HIP_device_with_the_device_count_code_or_that_libamdhip64_is_missing() {
        Availability availability = provider.probe();
        assumeTrue(!availability.available(), "a HIP device is here: " + availability.detail());

        if (HipLibrary.failure().isPresent()) {
            assertThat(availability.toString()).startsWith("unavailable: libamdhip64 not found (");
        } else {
            assertThat(availability.toString()).isEqualTo("unavailable: no HIP device (hipGetDeviceCount → 100)");
        }
    }

    @Test
    void Debians_real_libamdhip64_5_loads_and_reports_no_HIP_device() {
        assumeTrue(
                Files.exists(DEBIAN_LIBRARY) && nothingConfigured(),
                "Debian's libamdhip64-5 is not installed here (apt-get install libamdhip64-5), or a library is configured");

        Availability availability = provider.probe();

        assertThat(HipLibrary.failure()).isEmpty();
        assertThat(HipLibrary.origin()).startsWith("libamdhip64.so");
        assertThat(availability.toString()).isEqualTo("unavailable: no HIP device (hipGetDeviceCount → 100)");
        assertThat(HipRuntime.tryInit()).as("hipInit: hipErrorInvalidDevice").isEqualTo(101);
        assertThat(HipRuntime.runtimeVersion()).as("ROCm 5.2.3's HIP_VERSION").isEqualTo(50_221_153);
        assertThat(HipRuntime.hasGraphUpload())
                .as("ROCm 5.2 has no hipGraphUpload")
                .isFalse();
        assertThat(HipRuntime.hasGraphDebugDotPrint())
                .as("ROCm 5.2 has no hipGraphDebugDotPrint")
                .isFalse();
    }

    @Test
    void a_missing_library_is_reported_as_not_found_with_what_was_tried() {
        HipLibrary.Loaded loaded = HipLibrary.locate(
                Optional.empty(), List.of("libamdhip64-graphrt-absent.so", "/nonexistent/libamdhip64.so"));

        assertThat(loaded.lookup()).isNull();
        assertThat(loaded.failure())
                .startsWith("libamdhip64 not found (tried libamdhip64-graphrt-absent.so, /nonexistent/libamdhip64.so")
                .contains(HipLibrary.ENV);
        assertThat(Availability.unavailable(loaded.failure()).toString())
                .startsWith("unavailable: libamdhip64 not found (");
    }

    @Test
    void a_configured_library_that_does_not_load_stops_the_search_and_names_who_configured_it() {
        HipLibrary.Loaded loaded = HipLibrary.locate(
                Optional.of(
                        new HipLibrary.Explicit("/nonexistent/libamdhip64.so", "environment variable GRAPHRT_HIP_LIB")),
                HipLibrary.DEFAULT_CANDIDATES);

        assertThat(loaded.lookup()).isNull();
        assertThat(loaded.failure())
                .startsWith("libamdhip64 not found (/nonexistent/libamdhip64.so, set by the "
                        + "environment variable GRAPHRT_HIP_LIB");
    }

    @Test
    void the_backend_option_reaches_the_probe_and_a_library_is_never_swapped_once_bound() {
        BackendConfig naming = new BackendConfig(0, Map.of(HipLibrary.OPTION, "/nonexistent/libamdhip64.so"));

        Availability availability = provider.probe(naming);

        assertThat(availability.available()).isFalse();
        if (HipLibrary.failure().isEmpty()) {
            assertThat(availability.detail())
                    .startsWith("the backend option hip.library=/nonexistent/libamdhip64.so "
                            + "names another library than the one this JVM already bound (" + HipLibrary.origin()
                            + ")");
            assertThat(provider.probe(new BackendConfig(0, Map.of(HipLibrary.OPTION, HipLibrary.origin()))))
                    .as("naming the bound library is fine")
                    .isEqualTo(provider.probe());
        } else {
            assertThat(availability.detail())
                    .startsWith("libamdhip64 not found (/nonexistent/libamdhip64.so, set by "
                            + "the backend option hip.library");
        }
    }

    @Test
    void the_system_property_wins_over_the_environment_variable() {
        Map<String, String> properties = Map.of(HipLibrary.PROPERTY, "/a/libamdhip64.so");
        Map<String, String> environment = Map.of(HipLibrary.ENV, "/b/libamdhip64.so");

        assertThat(HipLibrary.explicitLibrary(properties::get, environment::get))
                .contains(new HipLibrary.Explicit("/a/libamdhip64.so", "system property " + HipLibrary.PROPERTY));
        assertThat(HipLibrary.explicitLibrary(Map.<String, String>of()::get, environment::get))
                .contains(new HipLibrary.Explicit("/b/libamdhip64.so", "environment variable " + HipLibrary.ENV));
        assertThat(HipLibrary.explicitLibrary(Map.<String, String>of()::get, Map.of(HipLibrary.ENV, " ")::get))
                .isEmpty();
    }

    @Test
    void a_library_is_the_same_when_named_alike_or_when_both_paths_are_one_file(@TempDir Path dir) throws Exception {
        assertThat(HipLibrary.sameLibrary("libamdhip64.so.5", "libamdhip64.so.5"))
                .isTrue();
        assertThat(HipLibrary.sameLibrary("/opt/other/libamdhip64.so", "libamdhip64.so.5"))
                .isFalse();

        // The test makes its own link, so it needs no -dev package: to Debian's library where it is installed,
        // else to a file of its own.
        Path target =
                Files.exists(DEBIAN_LIBRARY) ? DEBIAN_LIBRARY : Files.writeString(dir.resolve("libamdhip64.so.5"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("libamdhip64.so"), target);
        Path other = Files.writeString(dir.resolve("libother.so"), "y");

        assertThat(HipLibrary.sameLibrary(link.toString(), target.toString()))
                .as("a symlink to the same file")
                .isTrue();
        assertThat(HipLibrary.sameLibrary(target.toString(), link.toString()))
                .as("either way round")
                .isTrue();
        assertThat(HipLibrary.sameLibrary(other.toString(), target.toString()))
                .as("another file")
                .isFalse();
        assertThat(HipLibrary.sameLibrary(dir.resolve("missing.so").toString(), target.toString()))
                .as("a path that does not exist")
                .isFalse();
    }

    @Test
    void every_symbol_but_the_error_namer_returns_a_hipError_t_and_only_upload_dot_print_and_update_are_optional() {
        java.util.Set<HipNative.Symbol> optional = java.util.EnumSet.of(
                HipNative.Symbol.hipGraphUpload,
                HipNative.Symbol.hipGraphDebugDotPrint,
                HipNative.Symbol.hipGraphExecUpdate,
                HipNative.Symbol.hipGraphExecKernelNodeSetParams,
                HipNative.Symbol.hipGraphAddChildGraphNode,
                HipNative.Symbol.hipStreamGetCaptureInfo_v2,
                HipNative.Symbol.hipStreamUpdateCaptureDependencies);
        for (HipNative.Symbol symbol : HipNative.Symbol.values()) {
            assertThat(symbol.name()).startsWith("hip");
            assertThat(symbol.descriptor().returnLayout()).isPresent();
            assertThat(symbol.required()).as(symbol.name()).isEqualTo(!optional.contains(symbol));
        }
    }

    @Test
    void capabilities_match_cudas_and_add_dot_export_only_when_the_runtime_can_dump_graphs() {
        assertThat(HipBackend.capabilities(false, false, false, false))
                .containsExactlyInAnyOrder(
                        dev.graphrt.api.Capability.RECORDS_WRITES,
                        dev.graphrt.api.Capability.CAPTURE_MODE_RELAXED,
                        dev.graphrt.api.Capability.MULTI_STREAM_CAPTURE);
        assertThat(HipBackend.capabilities(true, false, false, false))
                .contains(dev.graphrt.api.Capability.DOT_EXPORT)
                .hasSize(4);
        assertThat(HipBackend.capabilities(false, true, false, false))
                .contains(dev.graphrt.api.Capability.GRAPH_UPDATE)
                .hasSize(4);
        assertThat(HipBackend.capabilities(false, false, true, false))
                .contains(dev.graphrt.api.Capability.NESTED_GRAPHS)
                .hasSize(4);
        assertThat(HipBackend.capabilities(false, false, false, true))
                .contains(dev.graphrt.api.Capability.COLLECTIVES)
                .hasSize(4);
    }

    @Test
    void HIP_versions_read_as_major_minor_patch() {
        assertThat(HipNative.versionText(50_221_153)).isEqualTo("5.2.21153");
        assertThat(HipNative.versionText(60_241_134)).isEqualTo("6.2.41134");
    }
}
