package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Reading which libraries are mapped, and pinning only what was loaded since; needs no webgpu library. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DriverResidencyTest {

    @Test
    void the_mapped_libraries_include_the_jvm_itself_as_absolute_paths() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "no /proc/self/maps here");

        assertThat(DriverResidency.mappedLibraries())
                .isNotEmpty()
                .allMatch(Path::isAbsolute)
                .anyMatch(p -> p.getFileName().toString().equals("libjvm.so"));
    }

    @Test
    void nothing_is_pinned_when_nothing_was_loaded_since_the_snapshot() {
        assertThat(DriverResidency.pinLoadedSince(DriverResidency.mappedLibraries()))
                .isEmpty();
    }
}
