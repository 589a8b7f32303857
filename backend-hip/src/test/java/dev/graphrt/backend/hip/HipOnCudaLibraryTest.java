package dev.graphrt.backend.hip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The HIP-on-CUDA test library (src/test/native/hip_on_cuda.cpp) keeps up with the backend: it defines every
 * function the backend binds, and it compiles against HIP's AMD-platform declarations and CUDA's cuda.h, which
 * is what checks each forwarder's signature.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class HipOnCudaLibraryTest {
    /** From the module directory (Maven) or from the repository root (the GPU machine's console launcher). */
    private static final Path SOURCE = Files.exists(Path.of("src/test/native/hip_on_cuda.cpp"))
            ? Path.of("src/test/native/hip_on_cuda.cpp")
            : Path.of("backend-hip/src/test/native/hip_on_cuda.cpp");

    private static final Path HIP_HEADER = Path.of("/usr/include/hip/hip_runtime_api.h");
    private static final Path CUDA_HEADER = Path.of("/usr/local/cuda/include/cuda.h");

    private static String source() throws IOException {
        assumeTrue(Files.exists(SOURCE), "the test sources are not here: " + SOURCE.toAbsolutePath());
        return Files.readString(SOURCE);
    }

    private static boolean defines(String source, String function) {
        return Pattern.compile(
                        "^(hipError_t|hiprtcResult|const char\\*) " + function + "\\([^;]*\\{", Pattern.MULTILINE)
                .matcher(source)
                .find();
    }

    @Test
    void it_defines_every_runtime_and_hiprtc_function_the_backend_binds() throws IOException {
        String source = source();
        List<String> missing = new ArrayList<>();
        for (HipNative.Symbol symbol : HipNative.Symbol.values()) {
            if (!defines(source, symbol.name())) {
                missing.add(symbol.name());
            }
        }
        for (String name : Hiprtc.SYMBOLS) {
            if (!defines(source, name)) {
                missing.add(name);
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void it_compiles_against_HIPs_AMD_declarations_and_CUDAs_driver_header() throws Exception {
        String source = source();
        assumeTrue(
                Files.exists(HIP_HEADER) && Files.exists(CUDA_HEADER),
                "needs libamdhip64-dev's headers and the CUDA toolkit's cuda.h");
        Path log = Files.createTempFile("hip-on-cuda-", ".log");
        try {
            Process compiler;
            try {
                compiler = new ProcessBuilder(
                                "g++",
                                "-std=c++17",
                                "-fsyntax-only",
                                "-Wall",
                                "-Wextra",
                                "-D__HIP_PLATFORM_AMD__",
                                "-I" + CUDA_HEADER.getParent(),
                                SOURCE.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
            } catch (IOException noCompiler) {
                assumeTrue(false, "no g++ here: " + noCompiler.getMessage());
                return;
            }
            assertThat(compiler.waitFor(120, TimeUnit.SECONDS))
                    .as("g++ finished")
                    .isTrue();
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(compiler.exitValue()).as(output).isZero();
            assertThat(output).as("no warnings").doesNotContain("warning:");
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
