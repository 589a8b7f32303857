package dev.graphrt.examples.gpt;

import java.util.ArrayList;
import java.util.List;

/**
 * Random weights from a fixed seed, generated element by element from a counter ({@code splitmix64} of the tensor id,
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
