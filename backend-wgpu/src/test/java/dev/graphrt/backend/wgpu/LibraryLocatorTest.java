package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class LibraryLocatorTest {

    @Test
    void the_default_location_is_found_in_a_parent_of_the_working_directory(@TempDir Path root) throws IOException {
        Path library = root.resolve(".natives/dawn/libwebgpu_wrapper.so");
        Files.createDirectories(library.getParent());
        Files.writeString(library, "");
        Path module = Files.createDirectories(root.resolve("backend-wgpu/target"));

        LibraryLocator location = LibraryLocator.locate(Map.of(), null, null, module);

        assertThat(location.path()).contains(library);
    }

    @Test
    void the_option_wins_over_the_property_and_the_environment() {
        LibraryLocator location =
                LibraryLocator.locate(Map.of("wgpu.library", "/a/lib.so"), "/b/lib.so", "/c/lib.so", Path.of("/"));

        assertThat(location.path()).contains(Path.of("/a/lib.so"));
        assertThat(location.searched()).contains("option wgpu.library");
    }

    @Test
    void the_environment_variable_is_used_when_nothing_else_is_set() {
        LibraryLocator location = LibraryLocator.locate(Map.of(), null, "/c/lib.so", Path.of("/"));

        assertThat(location.path()).contains(Path.of("/c/lib.so"));
        assertThat(location.searched()).contains("GRAPHRT_WEBGPU_LIB");
    }

    @Test
    void nothing_found_says_how_to_get_the_library(@TempDir Path empty) {
        LibraryLocator location = LibraryLocator.locate(Map.of(), null, null, empty);

        assertThat(location.path()).isEmpty();
        assertThat(location.searched()).contains("scripts/setup-webgpu.sh").contains("GRAPHRT_WEBGPU_LIB");
    }
}
