package dev.graphrt.examples.gpt;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A decoder's weights: GPT-2's, read from a Hugging Face safetensors file ({@link #fromSafetensors}), or random
 * weights from a fixed seed, generated element by element from a counter ({@code splitmix64} of the tensor id,
 * the element index and the seed), so the plain-Java reference, every backend and the PyTorch script
 * ({@code examples/src/main/python/decode_torch.py}) build the same numbers bit for bit without downloading anything.
 * Matrices are row-major with one row per output.
 */
public final class GptWeights {
    public static final long SEED = 2026;

    /** One layer's tensors. */
    public record Layer(
            float[] ln1g,
            float[] ln1b,
            float[] wQkv,
            float[] bQkv,
            float[] wProj,
            float[] bProj,
            float[] ln2g,
            float[] ln2b,
            float[] wUp,
            float[] bUp,
            float[] wDown,
            float[] bDown) {}

    public final GptConfig config;
    public final float[] wte;
    public final float[] wpe;
    public final float[] lnfG;
    public final float[] lnfB;
    public final List<Layer> layers;

    private GptWeights(GptConfig c, float[] wte, float[] wpe, float[] lnfG, float[] lnfB, List<Layer> layers) {
        this.config = c;
        this.wte = wte;
        this.wpe = wpe;
        this.lnfG = lnfG;
        this.lnfB = lnfB;
        this.layers = List.copyOf(layers);
    }

    /** The width of one attention head in every GPT-2 model: a safetensors file holds no head count, so it is d / 64. */
    static final int GPT2_HEAD_DIM = 64;

    /**
     * GPT-2's weights from a Hugging Face safetensors file ({@code model.safetensors} of {@code gpt2}; names with or
     * without a {@code transformer.} prefix; F32, F16 or BF16, read as floats). The shapes give the configuration:
     * layers from the {@code h.N} blocks, width and vocabulary from {@code wte}, context from {@code wpe}, and
     * {@code d / 64} heads. GPT-2's {@code Conv1D} weights are stored input-major ({@code [in, out]}); they are
     * transposed into this decoder's one row per output. A missing tensor or a wrong shape is refused naming it.
     */
    public static GptWeights fromSafetensors(Path file) throws IOException {
        Map<String, Safetensors.Tensor> all = Safetensors.read(file);
        String prefix = all.containsKey("transformer.wte.weight") ? "transformer." : "";
        Safetensors.Tensor wte = tensor(all, file, prefix + "wte.weight");
        Safetensors.Tensor wpe = tensor(all, file, prefix + "wpe.weight");
        if (wte.shape().length != 2 || wpe.shape().length != 2 || wpe.shape()[1] != wte.shape()[1]) {
            throw new IOException(file + ": wte.weight " + wte.shapeText() + " and wpe.weight " + wpe.shapeText()
                    + " must be [vocab, d] and [ctx, d]");
        }
        int d = Math.toIntExact(wte.shape()[1]);
        int layers = 0;
        while (all.containsKey(prefix + "h." + layers + ".ln_1.weight")) {
            layers++;
        }
        if (d % GPT2_HEAD_DIM != 0 || layers == 0) {
            throw new IOException(file + ": " + layers + " blocks of width " + d
                    + ": not a GPT-2 model (blocks h.0, h.1, ... of a width divisible by 64)");
        }
        GptConfig c = new GptConfig(
                layers, d, d / GPT2_HEAD_DIM, Math.toIntExact(wpe.shape()[0]), Math.toIntExact(wte.shape()[0]));
        Shapes shapes = new Shapes(all, file);
        List<Layer> list = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            String h = prefix + "h." + l + ".";
            list.add(new Layer(
                    shapes.vector(h + "ln_1.weight", d),
                    shapes.vector(h + "ln_1.bias", d),
                    shapes.conv1d(h + "attn.c_attn.weight", d, 3 * d),
                    shapes.vector(h + "attn.c_attn.bias", 3 * d),
                    shapes.conv1d(h + "attn.c_proj.weight", d, d),
                    shapes.vector(h + "attn.c_proj.bias", d),
                    shapes.vector(h + "ln_2.weight", d),
                    shapes.vector(h + "ln_2.bias", d),
                    shapes.conv1d(h + "mlp.c_fc.weight", d, c.mlp()),
                    shapes.vector(h + "mlp.c_fc.bias", c.mlp()),
                    shapes.conv1d(h + "mlp.c_proj.weight", c.mlp(), d),
                    shapes.vector(h + "mlp.c_proj.bias", d)));
        }
        return new GptWeights(
                c,
                wte.values(),
                wpe.values(),
                shapes.vector(prefix + "ln_f.weight", d),
                shapes.vector(prefix + "ln_f.bias", d),
                list);
    }

    private static Safetensors.Tensor tensor(Map<String, Safetensors.Tensor> all, Path file, String name)
            throws IOException {
        Safetensors.Tensor t = all.get(name);
        if (t == null) {
            throw new IOException(file + ": no tensor '" + name + "': not a GPT-2 model in Hugging Face's names");
        }
        return t;
    }

    /** A file's tensors checked against the shapes this decoder needs. */
    private record Shapes(Map<String, Safetensors.Tensor> all, Path file) {
        float[] vector(String name, int n) throws IOException {
            Safetensors.Tensor t = tensor(all, file, name);
            if (t.shape().length != 1 || t.shape()[0] != n) {
                throw new IOException(file + ": tensor '" + name + "' is " + t.shapeText() + ", expected [" + n + "]");
            }
            return t.values();
        }

        /** A {@code Conv1D} weight stored {@code [in, out]}, returned as {@code out} rows of {@code in}. */
        float[] conv1d(String name, int in, int out) throws IOException {
            Safetensors.Tensor t = tensor(all, file, name);
            if (t.shape().length != 2 || t.shape()[0] != in || t.shape()[1] != out) {
                throw new IOException(file + ": tensor '" + name + "' is " + t.shapeText() + ", expected [" + in + ", "
                        + out + "] (GPT-2's Conv1D: input-major)");
            }
            float[] stored = t.values();
            float[] rows = new float[stored.length];
            for (int i = 0; i < in; i++) {
                for (int o = 0; o < out; o++) {
                    rows[o * in + i] = stored[i * out + o];
                }
            }
            return rows;
        }
    }

    /**
     * These weights with every matrix the bf16 decoder packs (the four per layer and the tied embedding) rounded to
     * bf16, kept as floats: the fp32 model of the bf16 decode, which the plain-Java reference then checks exactly.
     */
    public GptWeights roundedToBf16() {
        List<Layer> rounded = new ArrayList<>();
        for (Layer l : layers) {
            rounded.add(new Layer(
                    l.ln1g(),
                    l.ln1b(),
                    bf16(l.wQkv()),
                    l.bQkv(),
                    bf16(l.wProj()),
                    l.bProj(),
                    l.ln2g(),
                    l.ln2b(),
                    bf16(l.wUp()),
                    l.bUp(),
                    bf16(l.wDown()),
                    l.bDown()));
        }
        return new GptWeights(config, bf16(wte), wpe, lnfG, lnfB, rounded);
    }

    private static float[] bf16(float[] values) {
        float[] out = new float[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = GptBf16Kernels.roundToBf16(values[i]);
        }
        return out;
    }

    public GptWeights(GptConfig c) {
        this.config = c;
        int d = c.d();
        wte = uniform(1, (long) c.vocab() * d, 0.02);
        wpe = uniform(2, (long) c.ctx() * d, 0.02);
        lnfG = gain(3, d);
        lnfB = uniform(4, d, 0.1);
        List<Layer> list = new ArrayList<>();
        for (int l = 0; l < c.layers(); l++) {
            long base = 100 + 16L * l;
            list.add(new Layer(
                    gain(base, d),
                    uniform(base + 1, d, 0.1),
                    uniform(base + 2, 3L * d * d, 0.02),
                    uniform(base + 3, 3L * d, 0.01),
                    uniform(base + 4, (long) d * d, 0.02),
                    uniform(base + 5, d, 0.01),
                    gain(base + 6, d),
                    uniform(base + 7, d, 0.1),
                    uniform(base + 8, (long) c.mlp() * d, 0.02),
                    uniform(base + 9, c.mlp(), 0.01),
                    uniform(base + 10, (long) d * c.mlp(), 0.02),
                    uniform(base + 11, d, 0.01)));
        }
        layers = List.copyOf(list);
    }

    /** The generator: a double in [0, 1) with 24 random bits, for element {@code i} of tensor {@code tensor}. */
    @SuppressWarnings("ConstantOverflow") // SplitMix64's seed step wraps around 2^64 on purpose, as its reference does
    static double unit(long tensor, long i) {
        long z = (tensor << 32) + i + SEED * 0x9E3779B97F4A7C15L + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 40) * 0x1.0p-24;
    }

    private static float[] uniform(long tensor, long n, double scale) {
        float[] out = new float[Math.toIntExact(n)];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) ((unit(tensor, i) * 2.0 - 1.0) * scale);
        }
        return out;
    }

    private static float[] gain(long tensor, int n) {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = (float) (1.0 + (unit(tensor, i) * 2.0 - 1.0) * 0.1);
        }
        return out;
    }

    /** The decoder's input at position {@code p} for {@code token}: the token's embedding plus the position's. */
    public float[] input(int token, int p) {
        int d = config.d();
        float[] x = new float[d];
        for (int i = 0; i < d; i++) {
            x[i] = wte[token * d + i] + wpe[p * d + i];
        }
        return x;
    }
}
