package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CudaNcclTest {

    @Test
    void the_python_wheels_copy_is_found_under_site_packages_and_dist_packages(@TempDir Path root) throws IOException {
        Path site = wheelCopy(root.resolve("python3.12/site-packages"));
        Path dist = wheelCopy(root.resolve("python3.11/dist-packages"));
        Files.createDirectories(root.resolve("python3.10/site-packages/nvidia/cublas/lib")); // another wheel only
        Files.createDirectories(root.resolve("perl5"));

        assertThat(CudaNccl.wheelCopies(List.of(root, root.resolve("absent"))))
                .containsExactly(dist.toString(), site.toString());
    }

    @Test
    void a_virtual_environment_and_the_users_own_packages_come_before_the_system_pythons() {
        assertThat(CudaNccl.pythonLibraryDirectories(name -> switch (name) {
                    case "VIRTUAL_ENV" -> "/venv";
                    case "HOME" -> "/home/u";
                    default -> null;
                }))
                .containsExactly(
                        Path.of("/venv/lib"),
                        Path.of("/home/u/.local/lib"),
                        Path.of("/usr/local/lib"),
                        Path.of("/usr/lib"));
    }

    private static Path wheelCopy(Path packages) throws IOException {
        Path lib = Files.createDirectories(packages.resolve("nvidia/nccl/lib"));
        return Files.writeString(lib.resolve("libnccl.so.2"), "not a real library");
    }
}
