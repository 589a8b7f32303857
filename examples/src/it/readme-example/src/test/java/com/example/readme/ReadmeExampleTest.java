package com.example.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Twenty lines" example, taken from README.md as it is (the first java block after that heading),
 * placed verbatim in a method of a class that defines the names the README leaves to its reader ({@link Layer}),
 * compiled against this build's class path, which holds GraphRT only as the BOM resolves it, and run on cpu. So
 * the README cannot drift from the API: a renamed method fails this build.
 */
class ReadmeExampleTest {
    private static final int N = 4096;

    @Test
    void the_twenty_lines_of_the_readme_compile_as_written_and_compute_the_two_layers() throws Exception {
        List<String> snippet = extract(Path.of(System.getProperty("readme")));
        assertTrue(snippet.size() >= 15, "the example has its twenty lines, found " + snippet.size());
        Path sources = Files.createTempDirectory("readme-src");
        Path classes = Files.createTempDirectory("readme-classes");
        Path file = sources.resolve("com/example/readme/generated/TwentyLines.java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, wrap(snippet));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                "--release", "25", file.toString());
        assertEquals(0, rc, "the README's example does not compile as written (javac's messages above)\n"
                + String.join("\n", snippet));
        Layer.secondLayerOut = new float[N];
        Layer.INVOCATIONS.set(0);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeExampleTest.class.getClassLoader())) {
            loader.loadClass("com.example.readme.generated.TwentyLines").getMethod("run").invoke(null);
        }
        float[] last = Layer.tokenEmbedding(9_999, N);
        float[] out = Layer.secondLayerOut;
        for (int i = 0; i < N; i++) {
            assertEquals(-(2f * last[i] + 1f), out[i], "out[" + i + "] after the last token");
        }
        // 10,000 replays plus the warm-up, each two layers of N invocations
        assertEquals(10_001L * 2 * N, Layer.INVOCATIONS.get());
    }

    /** The lines of the first java block after the "## Twenty lines" heading. */
    static List<String> extract(Path readme) throws Exception {
        List<String> lines = Files.readAllLines(readme);
        int heading = lines.indexOf("## Twenty lines");
        assertTrue(heading >= 0, readme + " has no \"## Twenty lines\" section");
        List<String> block = new ArrayList<>();
        boolean inside = false;
        for (String line : lines.subList(heading + 1, lines.size())) {
            if (!inside && line.strip().equals("```java")) {
                inside = true;
            } else if (inside && line.strip().equals("```")) {
                return block;
            } else if (inside) {
                block.add(line);
            }
        }
        throw new AssertionError(readme + ": no closed java block after \"## Twenty lines\"");
    }

    private static String wrap(List<String> snippet) {
        return """
                package com.example.readme.generated;

                import dev.graphrt.api.*;
                import dev.graphrt.core.GraphRT;

                public final class TwentyLines {
                    static final int n = %d;
                    static final String CUDA_TEXT = com.example.readme.Layer.CUDA_TEXT;
                    static final String WGSL_TEXT = com.example.readme.Layer.WGSL_TEXT;
                    static final JavaKernel JAVA_BODY = com.example.readme.Layer.JAVA_BODY;

                    static float[] tokenEmbedding(int t) {
                        return com.example.readme.Layer.tokenEmbedding(t, n);
                    }

                    public static void run() {
                %s
                    }
                }
                """.formatted(N, String.join("\n", snippet));
    }
}
