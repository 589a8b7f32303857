package dev.graphrt.backend.cuda;

import dev.graphrt.driver.CollectiveLibrary;
import dev.graphrt.spi.BackendConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Finds NCCL for the cuda backend's {@code COLLECTIVES}: the backend option {@value #OPTION} (a path, or {@code off}),
 * else the environment variable {@value #ENV}, else {@code libnccl.so.2} on the loader's path, else the copy that
 * NVIDIA's Python wheel ({@code nvidia-nccl-cu12}/{@code -cu13}) installs under a Python's {@code site-packages} or
 * {@code dist-packages}, as PyTorch machines have it. Without it, the backend does not declare {@code COLLECTIVES}.
 */
final class CudaNccl {
    /** Backend option: the NCCL library's path, or {@code off}. */
    static final String OPTION = "cuda.nccl";
    /** Environment variable naming the NCCL library file. */
    static final String ENV = "GRAPHRT_NCCL_LIB";

    static final String SONAME = "libnccl.so.2";

    private CudaNccl() {}

    /** The NCCL {@code config} and {@code environment} ask for, or why there is none. */
    static CollectiveLibrary.Located locate(BackendConfig config, UnaryOperator<String> environment) {
        return CollectiveLibrary.configured("NCCL", config, OPTION, ENV, environment, () -> {
            List<String> defaults = new ArrayList<>();
            defaults.add(SONAME);
            defaults.addAll(wheelCopies(pythonLibraryDirectories(environment)));
            return defaults;
        });
    }

    /** The directories that hold a Python's {@code python3.N} directory. */
    static List<Path> pythonLibraryDirectories(UnaryOperator<String> environment) {
        List<Path> roots = new ArrayList<>();
        String venv = environment.apply("VIRTUAL_ENV");
        if (venv != null && !venv.isBlank()) {
            roots.add(Path.of(venv, "lib"));
        }
        String home = environment.apply("HOME");
        if (home != null && !home.isBlank()) {
            roots.add(Path.of(home, ".local", "lib"));
        }
        roots.add(Path.of("/usr/local/lib"));
        roots.add(Path.of("/usr/lib"));
        return roots;
    }

    /** {@code <root>/python3*}/{site,dist}-packages/nvidia/nccl/lib/libnccl.so.2} files that exist, in order. */
    static List<String> wheelCopies(List<Path> roots) {
        List<String> found = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> pythons = Files.list(root)) {
                pythons.filter(p -> p.getFileName().toString().startsWith("python3"))
                        .sorted()
                        .forEach(python -> {
                            for (String packages : List.of("site-packages", "dist-packages")) {
                                Path library = python.resolve(packages)
                                        .resolve("nvidia/nccl/lib")
                                        .resolve(SONAME);
                                if (Files.isRegularFile(library)) {
                                    found.add(library.toString());
                                }
                            }
                        });
            } catch (IOException | RuntimeException e) {
                // an unreadable directory holds no candidate
            }
        }
        return found;
    }
}
