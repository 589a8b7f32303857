package dev.graphrt.examples.gpt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.RuntimeOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decode example's safetensors loader on files the test writes: GPT-2's names and layout (Conv1D weights stored
 * input-major), F32, F16 and BF16, with and without the {@code transformer.} prefix, and every way a file can be
 * wrong, each refused naming what is wrong.
 */
class SafetensorsTest {
    /** Two blocks of width 128 with heads of 64, as GPT-2's are. */
    private static final GptConfig SMALL = new GptConfig(2, 128, 2, 64, 300);

    @TempDir
    Path dir;

    /** A tensor to write: its dtype, shape and values (rounded to the dtype when it is not F32). */
    private record Entry(String dtype, long[] shape, float[] values) {}

    /** Writes {@code tensors} as a safetensors file, with a metadata block as Hugging Face's files have one. */
    private static Path write(Path file, Map<String, Entry> tensors) throws IOException {
        StringBuilder json = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
        long offset = 0;
        for (Map.Entry<String, Entry> e : tensors.entrySet()) {
            long bytes = e.getValue().values().length * (e.getValue().dtype().equals("F32") ? 4L : 2L);
            json.append(",\"")
                    .append(e.getKey())
                    .append("\":{\"dtype\":\"")
                    .append(e.getValue().dtype())
                    .append("\",\"shape\":")
                    .append(Arrays.toString(e.getValue().shape()).replace(" ", ""))
                    .append(",\"data_offsets\":[")
                    .append(offset)
                    .append(',')
                    .append(offset + bytes)
                    .append("]}");
            offset += bytes;
        }
        json.append('}');
        byte[] header = json.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out =
                ByteBuffer.allocate(Math.toIntExact(8 + header.length + offset)).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(header.length).put(header);
        for (Entry e : tensors.values()) {
            for (float v : e.values()) {
                switch (e.dtype()) {
                    case "F32" -> out.putFloat(v);
                    case "F16" -> out.putShort(Float.floatToFloat16(v));
                    default -> out.putShort((short) (Float.floatToRawIntBits(v) >>> 16)); // BF16, truncated
                }
            }
        }
        Files.write(file, out.array());
        return file;
    }

    /** {@code rows} (out rows of in) stored input-major, as GPT-2's Conv1D keeps them. */
    private static float[] inputMajor(float[] rows, int in, int out) {
        float[] stored = new float[rows.length];
        for (int o = 0; o < out; o++) {
            for (int i = 0; i < in; i++) {
                stored[i * out + o] = rows[o * in + i];
            }
        }
        return stored;
    }

    /** {@code weights} under GPT-2's names, in its layout, in {@code dtype}. */
    private static Map<String, Entry> gpt2Layout(GptWeights weights, String prefix, String dtype) {
        GptConfig c = weights.config;
        int d = c.d();
        Map<String, Entry> t = new LinkedHashMap<>();
        t.put(prefix + "wte.weight", new Entry(dtype, new long[] {c.vocab(), d}, weights.wte));
        t.put(prefix + "wpe.weight", new Entry(dtype, new long[] {c.ctx(), d}, weights.wpe));
        for (int l = 0; l < c.layers(); l++) {
            GptWeights.Layer w = weights.layers.get(l);
            String h = prefix + "h." + l + ".";
            t.put(h + "ln_1.weight", new Entry(dtype, new long[] {d}, w.ln1g()));
            t.put(h + "ln_1.bias", new Entry(dtype, new long[] {d}, w.ln1b()));
            t.put(h + "attn.bias", new Entry(dtype, new long[] {1, 1, 4, 4}, new float[16])); // GPT-2's mask: ignored
            t.put(h + "attn.c_attn.weight", new Entry(dtype, new long[] {d, 3L * d}, inputMajor(w.wQkv(), d, 3 * d)));
            t.put(h + "attn.c_attn.bias", new Entry(dtype, new long[] {3L * d}, w.bQkv()));
            t.put(h + "attn.c_proj.weight", new Entry(dtype, new long[] {d, d}, inputMajor(w.wProj(), d, d)));
            t.put(h + "attn.c_proj.bias", new Entry(dtype, new long[] {d}, w.bProj()));
            t.put(h + "ln_2.weight", new Entry(dtype, new long[] {d}, w.ln2g()));
            t.put(h + "ln_2.bias", new Entry(dtype, new long[] {d}, w.ln2b()));
            t.put(h + "mlp.c_fc.weight", new Entry(dtype, new long[] {d, c.mlp()}, inputMajor(w.wUp(), d, c.mlp())));
            t.put(h + "mlp.c_fc.bias", new Entry(dtype, new long[] {c.mlp()}, w.bUp()));
            t.put(
                    h + "mlp.c_proj.weight",
                    new Entry(dtype, new long[] {c.mlp(), d}, inputMajor(w.wDown(), c.mlp(), d)));
            t.put(h + "mlp.c_proj.bias", new Entry(dtype, new long[] {d}, w.bDown()));
        }
        t.put(prefix + "ln_f.weight", new Entry(dtype, new long[] {d}, weights.lnfG));
        t.put(prefix + "ln_f.bias", new Entry(dtype, new long[] {d}, weights.lnfB));
        return t;
    }

    private static void assertSameWeights(GptWeights loaded, GptWeights expected) {
        assertThat(loaded.config).isEqualTo(expected.config);
        assertThat(loaded.wte).isEqualTo(expected.wte);
        assertThat(loaded.wpe).isEqualTo(expected.wpe);
        assertThat(loaded.lnfG).isEqualTo(expected.lnfG);
        assertThat(loaded.lnfB).isEqualTo(expected.lnfB);
        for (int l = 0; l < expected.layers.size(); l++) {
            assertThat(loaded.layers.get(l)).usingRecursiveComparison().isEqualTo(expected.layers.get(l));
        }
    }

    @Test
    void gpt2s_names_and_layout_load_back_exactly_and_the_model_decodes_as_the_reference_does() throws IOException {
        GptWeights original = new GptWeights(SMALL);
        Path file = write(dir.resolve("model.safetensors"), gpt2Layout(original, "", "F32"));

        GptWeights loaded = GptWeights.fromSafetensors(file);

        assertSameWeights(loaded, original);
        assertThat(new GptReference(loaded).step(SMALL.token(0), 0))
                .isEqualTo(new GptReference(original).step(SMALL.token(0), 0));
        GptDecodeDemo.Result run = GptDecodeDemo.run(RuntimeOptions.defaults().backend("cpu"), loaded, 2, 1);
        assertThat(run.exactEnough())
                .as("eager %s, replayed %s", run.eagerError(), run.replayError())
                .isTrue();
    }

    @Test
    void half_precision_files_with_the_transformer_prefix_load_as_the_nearest_floats() throws IOException {
        GptWeights original = new GptWeights(SMALL);
        for (String dtype : List.of("F16", "BF16")) {
            Path file = write(dir.resolve(dtype + ".safetensors"), gpt2Layout(original, "transformer.", dtype));

            GptWeights loaded = GptWeights.fromSafetensors(file);

            assertThat(loaded.config).isEqualTo(SMALL);
            float expected = dtype.equals("F16")
                    ? Float.float16ToFloat(Float.floatToFloat16(original.wte[5]))
                    : Float.intBitsToFloat(Float.floatToRawIntBits(original.wte[5]) & 0xFFFF0000);
            assertThat(loaded.wte[5]).as(dtype).isEqualTo(expected).isNotEqualTo(0f);
        }
    }

    @Test
    void a_missing_tensor_is_named() throws IOException {
        Map<String, Entry> tensors = gpt2Layout(new GptWeights(SMALL), "", "F32");
        tensors.remove("h.1.mlp.c_proj.bias");
        Path file = write(dir.resolve("missing.safetensors"), tensors);

        assertThatThrownBy(() -> GptWeights.fromSafetensors(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("missing.safetensors")
                .hasMessageContaining("no tensor 'h.1.mlp.c_proj.bias'");
    }

    @Test
    void a_tensor_of_the_wrong_shape_is_named_with_both_shapes() throws IOException {
        Map<String, Entry> tensors = gpt2Layout(new GptWeights(SMALL), "", "F32");
        Entry qkv = tensors.get("h.0.attn.c_attn.weight");
        tensors.put("h.0.attn.c_attn.weight", new Entry("F32", new long[] {384, 128}, qkv.values())); // transposed
        Path file = write(dir.resolve("shape.safetensors"), tensors);

        assertThatThrownBy(() -> GptWeights.fromSafetensors(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("'h.0.attn.c_attn.weight' is [384, 128], expected [128, 384]");
    }

    @Test
    void a_truncated_file_a_bad_header_and_an_unread_dtype_are_refused_saying_so() throws IOException {
        Path whole = write(dir.resolve("whole.safetensors"), gpt2Layout(new GptWeights(SMALL), "", "F32"));
        byte[] bytes = Files.readAllBytes(whole);
        Path truncated = Files.write(dir.resolve("truncated.safetensors"), Arrays.copyOf(bytes, bytes.length - 100));
        assertThatThrownBy(() -> Safetensors.read(truncated))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("tensor 'ln_f.bias'")
                .hasMessageContaining("truncated");

        Path noHeader = Files.write(dir.resolve("short.bin"), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> Safetensors.read(noHeader)).hasMessageContaining("too short");

        byte[] huge = bytes.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1L << 40);
        Path badSize = Files.write(dir.resolve("size.safetensors"), huge);
        assertThatThrownBy(() -> Safetensors.read(badSize)).hasMessageContaining("does not fit the file");

        Path ints =
                write(dir.resolve("ints.safetensors"), Map.of("x", new Entry("F32", new long[] {2}, new float[] {1, 2
                })));
        byte[] relabelled = new String(Files.readAllBytes(ints), StandardCharsets.ISO_8859_1)
                .replace("\"F32\"", "\"I32\"")
                .getBytes(StandardCharsets.ISO_8859_1);
        Path i32 = Files.write(dir.resolve("i32.safetensors"), relabelled);
        assertThatThrownBy(() -> Safetensors.read(i32)).hasMessageContaining("tensor 'x' is I32");

        byte[] broken = new String(Files.readAllBytes(ints), StandardCharsets.ISO_8859_1)
                .replace("\"shape\":", "\"shape\"")
                .replace("{\"__metadata__\"", " {\"__metadata__\"")
                .getBytes(StandardCharsets.ISO_8859_1);
        Path malformed = Files.write(dir.resolve("json.safetensors"), broken);
        assertThatThrownBy(() -> Safetensors.read(malformed)).hasMessageContaining("JSON header is malformed");
    }

    @Test
    void values_come_back_in_order_with_their_shape_and_dtype() throws IOException {
        Path file = write(
                dir.resolve("two.safetensors"),
                new LinkedHashMap<>(
                        Map.of("a", new Entry("F32", new long[] {2, 3}, new float[] {1, -2, 3.5f, 4, 5, 6}))));

        Safetensors.Tensor a = Safetensors.read(file).get("a");

        assertThat(a.values()).containsExactly(1, -2, 3.5f, 4, 5, 6);
        assertThat(a.shape()).containsExactly(2, 3);
        assertThat(a.dtype()).isEqualTo("F32");
    }
}
