package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.spi.BackendConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NvrtcLocatorTest {
    private static final String LDCONFIG = """
            1234 libs found in cache `/etc/ld.so.cache'
            \tlibnvrtc.so.13 (libc6,x86-64) => /opt/cuda/lib64/libnvrtc.so.13
            \tlibnvrtc-builtins.so.13.0 (libc6,x86-64) => /opt/cuda/lib64/libnvrtc-builtins.so.13.0
            \tlibnvrtc.so (libc6,x86-64) => /opt/cuda/lib64/libnvrtc.so
            \tlibcudart.so.13 (libc6,x86-64) => /opt/cuda/lib64/libcudart.so.13
            """;

    private static NvrtcLocator locator(
            Map<String, String> options, Map<String, String> env, List<Path> dirs, String ldconfig) {
        return new NvrtcLocator(new BackendConfig(0, options), env::get, dirs, () -> ldconfig);
    }

    @Test
    void the_backend_option_wins_over_the_environment() {
        NvrtcLocator locator = locator(
                Map.of("cuda.nvrtc", "/a/libnvrtc.so"), Map.of("GRAPHRT_NVRTC", "/b/libnvrtc.so"), List.of(), "");

        assertThat(locator.explicitLibrary()).contains("/a/libnvrtc.so");
        assertThat(locator.candidates()).containsExactly("/a/libnvrtc.so");
    }

    @Test
    void the_environment_variable_is_used_when_no_option_is_set() {
        NvrtcLocator locator = locator(Map.of(), Map.of("GRAPHRT_NVRTC", "/b/libnvrtc.so"), List.of(), "");

        assertThat(locator.explicitLibrary()).contains("/b/libnvrtc.so");
    }

    @Test
    void the_toolkit_directory_yields_nvrtc_but_not_its_builtins(@TempDir Path lib64) throws IOException {
        for (String name : List.of("libnvrtc.so.13", "libnvrtc.so", "libnvrtc-builtins.so.13", "libcudart.so.13")) {
            Files.createFile(lib64.resolve(name));
        }
        NvrtcLocator locator = locator(Map.of(), Map.of(), List.of(lib64, lib64.resolve("missing")), "");

        assertThat(locator.toolkitCandidates())
                .containsExactly(
                        lib64.resolve("libnvrtc.so").toString(),
                        lib64.resolve("libnvrtc.so.13").toString());
    }

    @Test
    void an_ldconfig_listing_yields_the_nvrtc_paths_only() {
        assertThat(NvrtcLocator.parseLdconfig(LDCONFIG))
                .containsExactly("/opt/cuda/lib64/libnvrtc.so.13", "/opt/cuda/lib64/libnvrtc.so");
    }

    @Test
    void without_an_explicit_library_the_order_is_toolkit_then_ldconfig_then_sonames(@TempDir Path lib64)
            throws IOException {
        Files.createFile(lib64.resolve("libnvrtc.so.13"));
        NvrtcLocator locator = locator(Map.of(), Map.of(), List.of(lib64), LDCONFIG);

        assertThat(locator.candidates())
                .containsExactly(
                        lib64.resolve("libnvrtc.so.13").toString(),
                        "/opt/cuda/lib64/libnvrtc.so.13",
                        "/opt/cuda/lib64/libnvrtc.so",
                        "libnvrtc.so.13",
                        "libnvrtc.so.12",
                        "libnvrtc.so");
    }

    @Test
    void an_explicit_library_that_does_not_load_is_reported_and_not_replaced(@TempDir Path dir) {
        String missing = dir.resolve("libnvrtc.so.99").toString();
        NvrtcLocator locator = locator(Map.of("cuda.nvrtc", missing), Map.of(), List.of(), LDCONFIG);

        NvrtcLocator.Located located = locator.locate();

        assertThat(located.nvrtc()).isEmpty();
        assertThat(located.failure()).contains(missing).contains("cuda.nvrtc");
    }

    @Test
    void when_nothing_loads_the_failure_lists_what_was_tried_and_how_to_fix_it(@TempDir Path lib64) {
        NvrtcLocator locator = locator(Map.of(), Map.of(), List.of(lib64), "");

        NvrtcLocator.Located located = locator.locate();

        if (located.nvrtc().isEmpty()) { // a machine with NVRTC on the loader path finds it by soname
            assertThat(located.failure())
                    .contains("libnvrtc.so.13")
                    .contains("cuda.nvrtc")
                    .contains("GRAPHRT_NVRTC");
        }
    }
}
