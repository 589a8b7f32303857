package dev.graphrt.examples.gpt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decode example's small configuration in CI: on cpu, and on wgpu where lavapipe is installed, the first tokens'
 * logits, eager and replayed, match the plain-Java reference within 1e-4 of the largest logit.
 */
class GptDecodeTest {
    private static final GptWeights TINY = new GptWeights(GptConfig.tiny());

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void the_first_tokens_logits_match_the_plain_java_reference_eager_and_replayed(String backend) {
        assumeAvailable(backend);

        GptDecodeDemo.Result result =
                GptDecodeDemo.run(RuntimeOptions.defaults().backend(backend), TINY, 4, 1);

        assertThat(result.eagerError()).as("eager").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        assertThat(result.replayError()).as("replayed").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        assertThat(result.launches())
                .as("a layer's 4 gemvs and attention (its merge fused, except on wgpu), one logits chunk")
                .isEqualTo((backend.equals("wgpu") ? 6 : 5) * 2 + 1);
    }

    @Test
    void the_fused_merge_counts_each_head_back_to_zero_so_every_replayed_position_merges_again() {
        GptWeights weights = new GptWeights(new GptConfig(1, 64, 4, 300, 64));
        GptReference reference = new GptReference(weights);
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
                GpuStream stream = runtime.openStream();
                GptDecoder decoder = new GptDecoder(runtime, stream, weights);
                Graph graph = stream.capture(CaptureOptions.defaults(), decoder::step)) {
            for (int p = 0; p < 70; p++) {
                float[] want = reference.step(weights.config.token(p), p);
                decoder.feed(stream, weights, weights.config.token(p), p);
                graph.replay();
                assertThat(GptDecodeDemo.error(decoder.logits(stream), want))
                        .as("position %d, %d replays", p, p + 1)
                        .isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
            }
        }
    }

    @ParameterizedTest(name = "-D{0}={1}")
    @CsvSource({"gpt.tpr, 64, 11", "gpt.tpr, 256, 11", "gpt.fusedMerge, false, 13", "gpt.spread, false, 11"})
    void a_tuning_knob_changes_the_launches_but_not_the_logits(String property, String value, int launches) {
        System.setProperty(property, value);
        try {
            GptDecodeDemo.Result result =
                    GptDecodeDemo.run(RuntimeOptions.defaults().backend("cpu"), TINY, 4, 1);

            assertThat(result.launches()).as("launches a token").isEqualTo(launches);
            assertThat(result.eagerError()).as("eager").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
            assertThat(result.replayError()).as("replayed").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        } finally {
            System.clearProperty(property);
        }
    }

    @Test
    void threads_per_row_leave_each_thread_at_most_eight_loads_and_refuse_a_bad_minimum() {
        assertThat(GptKernels.threadsPerRow(768, 4, 32))
                .as("GPT-2's d, fp32: 6 loads each")
                .isEqualTo(32);
        assertThat(GptKernels.threadsPerRow(3072, 4, 32)).as("its MLP, fp32").isEqualTo(128);
        assertThat(GptKernels.threadsPerRow(3072, 8, 32)).as("its MLP, bf16").isEqualTo(64);
        assertThat(GptKernels.threadsPerRow(768, 4, 128)).as("a minimum holds").isEqualTo(128);
        assertThat(GptKernels.threadsPerRow(1 << 20, 4, 32))
                .as("at most a block")
                .isEqualTo(256);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> GptKernels.threadsPerRow(768, 4, 48))
                .withMessageContaining("atLeast must be 32, 64, 128 or 256, was 48");
    }

    @ParameterizedTest(name = "-D{0}=yes")
    @ValueSource(strings = {"gpt.fusedMerge", "gpt.spread", "gpt.fixedShapes", "gpt.layerKernel", "gpt.layerTrace"})
    void a_switch_that_is_neither_true_nor_false_is_refused_naming_it(String property) {
        System.setProperty(property, "yes");
        try {
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(
                            () -> GptDecodeDemo.run(RuntimeOptions.defaults().backend("cpu"), TINY, 1, 1))
                    .withMessage(property + " must be true or false, was yes");
        } finally {
            System.clearProperty(property);
        }
    }

    @Test
    void a_layers_kernel_barrier_other_than_acquire_or_fenced_is_refused_naming_both() {
        System.setProperty("gpt.layerBarrier", "relaxed");
        try {
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(
                            () -> GptDecodeDemo.run(RuntimeOptions.defaults().backend("cpu"), TINY, 1, 1))
                    .withMessage("gpt.layerBarrier must be acquire or fenced, was relaxed");
        } finally {
            System.clearProperty("gpt.layerBarrier");
        }
    }

    @Test
    void a_kernel_of_a_fixed_shape_has_its_sizes_before_its_cuda_text_and_keeps_its_other_texts() {
        KernelSource fixed = GptKernels.gemvOfShape(GptKernels.GEMV, 2304, 768, 32, 4);

        assertThat(fixed.text(Dialect.CUDA_C).orElseThrow())
                .startsWith(
                        "#define GEMV_ROWS 2304\n#define GEMV_COLS 768\n#define GEMV_TPR 32\n#define GEMV_FLAGS 4\n#line 1\n")
                .endsWith(GptKernels.GEMV.text(Dialect.CUDA_C).orElseThrow())
                .contains("#ifdef GEMV_COLS", "__trap()");
        assertThat(fixed.entryPoint()).isEqualTo("gemv");
        assertThat(fixed.text(Dialect.WGSL)).isEqualTo(GptKernels.GEMV.text(Dialect.WGSL));
        assertThat(fixed.javaKernel()).isEqualTo(GptKernels.GEMV.javaKernel());
        assertThat(GptAttentionKernels.attentionOfShape(GptAttentionKernels.MERGE, 768, 12, 32, 1024)
                        .text(Dialect.CUDA_C)
                        .orElseThrow())
                .startsWith("#define ATT_D 768\n#define ATT_HEADS 12\n#define ATT_CHUNK 32\n#define ATT_CTX 1024\n");
        assertThat(GptDependentLaunch.programmaticDependent(fixed, false)
                        .text(Dialect.CUDA_C)
                        .orElseThrow())
                .as("opted in after its shape is fixed")
                .contains("#define GEMV_COLS 768", "#define GPT_WAIT() graphrt_wait_for_predecessors()");
    }

    @ParameterizedTest(name = "{4}")
    @CsvSource(
            delimiter = '|',
            value = {
                "768 | 768 | 132 | 64 | GPT-2's output projection on an H200: 96 blocks of 8 rows would leave units idle",
                "768 | 2304 | 132 | 32 | its QKV: 288 blocks",
                "3072 | 768 | 132 | 128 | its MLP down: 384 blocks",
                "64 | 4 | 132 | 256 | at most a block",
                "768 | 768 | 1 | 32 | one unit"
            })
    void a_gemv_of_few_rows_spreads_them_over_more_threads_until_its_blocks_fill_the_units(
            int cols, int rows, int units, int threads, String why) {
        assertThat(GptKernels.threadsPerRow(cols, 4, 32, rows, units)).as(why).isEqualTo(threads);
    }

    @Test
    void threads_per_row_refuse_no_rows_naming_them() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> GptKernels.threadsPerRow(768, 4, 32, 0, 132))
                .withMessageContaining("rows and units must be positive, were 0 and 132");
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void kernels_opted_into_programmatic_dependent_launch_give_the_same_logits(String backend) {
        assumeAvailable(backend);

        GptDecodeDemo.Result result =
                GptDecodeDemo.run(RuntimeOptions.defaults().backend(backend), TINY, 4, 1, true);

        assertThat(result.eagerError()).as("eager").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        assertThat(result.replayError()).as("replayed").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void greedy_generation_replayed_on_the_device_chooses_the_tokens_plain_java_chooses(String backend) {
        assumeAvailable(backend);
        GptConfig c = TINY.config;
        int count = 12;
        int first =
                c.token(9); // from it the chosen tokens change (201 five times, then 94), and depend on the feedback
        int[] expected = GptDecodeDemo.javaGreedy(TINY, first, count);
        GptReference ignoringFeedback = new GptReference(TINY);
        int[] withoutFeedback = new int[count];
        for (int k = 0; k < count; k++) {
            withoutFeedback[k] = GptGenerationKernels.argmax(ignoringFeedback.step(first, k));
        }
        assertThat(withoutFeedback)
                .as("a device that ignored the token it chose would be caught")
                .isNotEqualTo(expected);
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream stream = runtime.openStream();
                GptDecoder decoder = new GptDecoder(runtime, stream, TINY)) {
            decoder.startGeneration(stream, first, 0);
            try (Graph graph = stream.capture(CaptureOptions.defaults(), decoder::generatingStep)) {
                decoder.startGeneration(stream, first, 0); // the warm-up pass generated one token already
                for (int k = 0; k < count; k++) {
                    graph.replay(); // no host read or write between the tokens
                }
                assertThat(decoder.generated(stream, 0, count)).isEqualTo(expected);
            }
        }
        assertThat(Arrays.stream(expected).distinct().count())
                .as("the tokens are not one repeated choice")
                .isGreaterThan(1);
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void greedy_generation_over_bf16_matrices_chooses_the_tokens_of_their_rounded_model(String backend) {
        assumeAvailable(backend);
        GptWeights rounded = TINY.roundedToBf16();
        int first = TINY.config.token(9);
        int[] expected = GptDecodeDemo.javaGreedy(rounded, first, 12);
        GptDecodeDemo.Generation generation =
                GptDecodeDemo.generate(RuntimeOptions.defaults().backend(backend), rounded, 12, false, true);

        assertThat(generation.matches())
                .as("the first %d of %s", generation.checked(), generation.tokens())
                .isTrue();
        assertThat(GptDecodeDemo.javaGreedy(rounded, rounded.config.token(0), generation.checked()))
                .isEqualTo(Arrays.copyOf(generation.tokens(), generation.checked()));
        assertThat(expected).hasSize(12);
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void bf16_matrices_decode_exactly_as_their_rounded_model_and_within_1e_2_of_fp32(String backend) {
        assumeAvailable(backend);
        GptWeights rounded = TINY.roundedToBf16();

        GptDecodeDemo.Result result =
                GptDecodeDemo.run(RuntimeOptions.defaults().backend(backend), rounded, 4, 1, false, true);

        assertThat(result.eagerError())
                .as("eager, against the rounded model")
                .isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        assertThat(result.replayError()).as("replayed").isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
        double distance = GptDecodeDemo.bf16Distance(TINY, rounded);
        assertThat(distance)
                .as("bf16 changes the logits, within the target")
                .isGreaterThan(0)
                .isLessThanOrEqualTo(1e-2);
        assertThat(GptBf16Kernels.packBf16(new float[] {1.0f, -2.5f}))
                .as("element 0 in the low half, rounded to nearest")
                .containsExactly(0x3F80 | 0xC020 << 16);
        assertThat(GptBf16Kernels.roundToBf16(1.00390625f))
                .as("a tie goes to even")
                .isEqualTo(1.0f);
        assertThat(GptBf16Kernels.roundToBf16(1.01171875f))
                .as("a tie goes to even, upwards")
                .isEqualTo(1.015625f);
    }

    @Test
    void an_opted_in_kernel_waits_first_in_its_cuda_text_and_keeps_its_other_texts() {
        KernelSource opted = GptDependentLaunch.programmaticDependent(GptAttentionKernels.ATTENTION, false);

        assertThat(opted.isProgrammaticDependent()).isTrue();
        String cuda = opted.text(Dialect.CUDA_C).orElseThrow();
        String plain = GptAttentionKernels.ATTENTION.text(Dialect.CUDA_C).orElseThrow();
        int body = cuda.indexOf('{', cuda.indexOf("__global__ void attention(")) + 1;
        assertThat(cuda.substring(body).strip())
                .as("the body's first statement")
                .startsWith("graphrt_wait_for_predecessors();");
        assertThat(cuda.replace("\n    graphrt_wait_for_predecessors();", "")).isEqualTo(plain);
        assertThat(opted.text(Dialect.WGSL)).isEqualTo(GptAttentionKernels.ATTENTION.text(Dialect.WGSL));
        assertThat(opted.javaKernel()).isEqualTo(GptAttentionKernels.ATTENTION.javaKernel());
    }

    @Test
    void an_opted_in_gemv_issues_its_first_weight_loads_before_it_waits_and_lets_the_next_start_after_its_rows() {
        for (KernelSource gemv : List.of(GptKernels.GEMV, GptBf16Kernels.GEMV_BF16)) {
            for (boolean late : new boolean[] {true, false}) {
                String cuda = GptDependentLaunch.programmaticDependent(gemv, late)
                        .text(Dialect.CUDA_C)
                        .orElseThrow();

                assertThat(cuda)
                        .as("the hooks become the prelude's calls, and the kernel's lines keep their numbers")
                        .startsWith(GptDependentLaunch.dependentHooks(late))
                        .endsWith(gemv.text(Dialect.CUDA_C).orElseThrow());
                String loop = cuda.substring(cuda.indexOf("void gemv_rows("));
                assertThat(loop.indexOf("load8(a, wv, t, n, tpr);"))
                        .as("weights first, then the wait, then the input the kernel before wrote")
                        .isLessThan(loop.indexOf("GPT_WAIT();"));
                assertThat(loop.indexOf("GPT_WAIT();")).isLessThan(loop.indexOf("gemv_input(x, g, b"));
                assertThat(loop.indexOf("GPT_TRIGGER();"))
                        .as("the trigger after the block's last row group")
                        .isGreaterThan(loop.indexOf("gemv_out(acc, row, bias, r, y, flags);"));
                assertThat(loop.indexOf("GPT_WAIT();"))
                        .as("the wait only on the block's first row group")
                        .isGreaterThan(loop.indexOf("if (grp == blockIdx.x) {"));
            }
        }
        assertThat(GptDependentLaunch.dependentHooks(true))
                .contains("GPT_WAIT() graphrt_wait_for_predecessors()", "GPT_TRIGGER() graphrt_launch_dependents()")
                .endsWith("#line 1\n");
        assertThat(GptDependentLaunch.dependentHooks(false))
                .as("without the late trigger, the next kernel starts as this one's blocks exit")
                .contains("#define GPT_TRIGGER() \n")
                .doesNotContain("graphrt_launch_dependents");
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"cpu", "wgpu"})
    void attention_spread_over_several_chunks_of_positions_matches_the_reference_past_each_chunk_edge(String backend) {
        assumeAvailable(backend);
        GptWeights weights = new GptWeights(new GptConfig(1, 64, 4, 300, 64));
        GptReference reference = new GptReference(weights);
        try (GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend(backend));
                GpuStream stream = runtime.openStream();
                GptDecoder decoder = new GptDecoder(runtime, stream, weights)) {
            for (int p = 0; p < 260; p++) {
                decoder.feed(stream, weights, weights.config.token(p), p);
                decoder.step(stream);
                float[] want = reference.step(weights.config.token(p), p);
                if (p == 31 || p == 32 || p == 127 || p == 128 || p == 256 || p == 259) {
                    assertThat(GptDecodeDemo.error(decoder.logits(stream), want))
                            .as("position %d", p)
                            .isLessThanOrEqualTo(GptDecodeDemo.TOLERANCE);
                }
            }
        }
    }

    /** Skips the calling test, naming every provider's probe, where {@code backend} cannot be opened here. */
    private static void assumeAvailable(String backend) {
        List<String> providers = GraphRT.describeProviders();
        assumeTrue(
                providers.stream().anyMatch(line -> line.startsWith(backend + " ") && line.contains(": available")),
                backend + " is not available here: " + providers);
    }

    /** The bit patterns decode_torch.py's numpy generator gives (its --selfcheck checks them against plain Python). */
    @org.junit.jupiter.api.Test
    void the_weights_are_the_ones_the_pytorch_script_builds_bit_for_bit() {
        assertThat(bits(TINY.wte)).containsExactly(0xbb8de824, 0xbc017ab8, 0x3c08a085, 0x3ba8c97b);
        assertThat(bits(TINY.lnfG)).containsExactly(0x3f7482b1, 0x3f76c715, 0x3f836d43, 0x3f8b0f92);
        assertThat(bits(TINY.layers.get(0).wQkv())).containsExactly(0xb823c000, 0xbc75e336, 0x3ab07f5c, 0xbc89a5f6);
        assertThat(bits(TINY.layers.get(0).ln1g())).containsExactly(0x3f7f7002, 0x3f85f65d, 0x3f8a747f, 0x3f87b934);
    }

    private static int[] bits(float[] values) {
        int[] out = new int[4];
        for (int i = 0; i < 4; i++) {
            out[i] = Float.floatToRawIntBits(values[i]);
        }
        return out;
    }

    @ParameterizedTest(name = "{0} of the reference")
    @ValueSource(ints = {0, 1, 7})
    void the_reference_is_not_trivial_its_logits_differ_by_token_and_are_finite(int k) {
        GptReference reference = new GptReference(TINY);
        float[] logits = null;
        for (int p = 0; p <= k; p++) {
            logits = reference.step(TINY.config.token(p), p);
        }
        float[] first = new GptReference(TINY).step(TINY.config.token(0), 0);
        for (float v : logits) {
            assertThat(Float.isFinite(v)).as("every logit is finite").isTrue();
        }
        if (k > 0) {
            assertThat(GptDecodeDemo.error(logits, first))
                    .as("token %d's logits differ from token 0's", k)
                    .isGreaterThan(1e-3);
        }
        double max = 0;
        for (float v : logits) {
            max = Math.max(max, Math.abs(v));
        }
        assertThat(max).as("the logits are not all near zero").isGreaterThan(1e-3);
    }
}
