package dev.graphrt.examples.gpt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The layer kernel's text and its shapes. Its results are checked on a GPU only (GptDecodeDemo against the plain-Java
 * reference); here, where nvcc is installed, its text compiles for an H200 as the decoder builds it, within one
 * block's registers a thread and without spilling, which is what keeps the whole grid resident at its barriers.
 */
class GptLayerKernelsTest {
    private static final int H200_UNITS = 132;

    @Test
    void gpt2_small_is_a_shape_the_layer_kernel_is_written_for_and_the_tiny_model_is_not() {
        assertThat(GptLayerKernels.supports(GptConfig.gpt2Small(), 32)).isTrue();
        assertThat(GptLayerKernels.supports(GptConfig.gpt2Small(), 16))
                .as("chunks of 16")
                .isFalse();
        assertThat(GptLayerKernels.supports(GptConfig.tiny(), 32))
                .as("tiny's heads are 16 wide")
                .isFalse();
    }

    @Test
    void a_shape_it_is_not_written_for_is_refused_naming_the_shape() {
        assertThatThrownBy(() -> GptLayerKernels.layer(false, GptConfig.gpt2Small(), 64, H200_UNITS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chunk 64");
        assertThatThrownBy(() -> GptLayerKernels.layer(false, GptConfig.gpt2Small(), 32, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grid");
    }

    @ParameterizedTest(name = "bf16 {0}")
    @ValueSource(booleans = {false, true})
    void the_text_holds_the_shape_as_constants_and_takes_25_buffers_and_the_info_words(boolean bf16) {
        KernelSource layer = GptLayerKernels.layer(bf16, GptConfig.gpt2Small(), 32, H200_UNITS);
        String text = layer.text(Dialect.CUDA_C).orElseThrow();

        assertThat(layer.entryPoint()).isEqualTo(bf16 ? "layers_bf16" : "layers");
        assertThat(text)
                .contains(
                        "#define LAYER_D 768",
                        "#define LAYER_MLP 3072",
                        "#define LAYER_GRID 132",
                        "#define LAYER_LAYERS 12")
                .contains("GPT_WAIT();");
        int at = text.indexOf("__launch_bounds__(512, 1) " + layer.entryPoint() + "(");
        assertThat(at).as("the entry point's declaration").isPositive();
        String parameters =
                text.substring(text.indexOf('(', at + "__launch_bounds__(".length()), text.indexOf(") {", at));
        assertThat(parameters.split(",")).as("25 buffers and the info words").hasSize(26);
    }

    @ParameterizedTest(name = "bf16 {0}, traced {1}, fenced barrier {2}")
    @CsvSource({"false, false, false", "true, false, false", "false, true, false", "false, false, true"})
    void where_nvcc_is_installed_the_text_compiles_for_an_h200_without_spilling(
            boolean bf16, boolean traced, boolean fenced, @TempDir Path dir) throws IOException, InterruptedException {
        Path nvcc = List.of(Path.of("/usr/local/bin/nvcc"), Path.of("/usr/local/cuda/bin/nvcc")).stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        assumeTrue(nvcc != null, "no nvcc on this machine");
        KernelSource layer = GptLayerKernels.layer(
                bf16, GptConfig.gpt2Small(), 32, H200_UNITS, new GptLayerKernels.Variant(traced, fenced));
        Path source = Files.writeString(
                dir.resolve("layer.cu"), layer.text(Dialect.CUDA_C).orElseThrow());

        Process compile = new ProcessBuilder(
                        nvcc.toString(),
                        "-arch=sm_90",
                        "--ptxas-options=-v",
                        "-c",
                        source.toString(),
                        "-o",
                        dir.resolve("layer.o").toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(compile.waitFor(120, TimeUnit.SECONDS)).as("nvcc finished").isTrue();

        assertThat(compile.exitValue()).as(output).isZero();
        assertThat(output).as("ptxas' report").contains("0 bytes spill stores").contains("Used ");
    }
}
