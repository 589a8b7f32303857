package dev.graphrt.examples.gpt;

/**
 * The plain-Java decoder the backends are checked against: the same model, written as directly as it reads, one
 * token at a time with a KV cache. Sums run in float in index order, as the simplest kernels would.
 */
public final class GptReference {
    private final GptWeights w;
    private final GptConfig c;
    private final float[][] keys;
    private final float[][] values;

    public GptReference(GptWeights weights) {
        this.w = weights;
        this.c = weights.config;
        this.keys = new float[c.layers()][c.ctx() * c.d()];
        this.values = new float[c.layers()][c.ctx() * c.d()];
    }

    /** The logits after feeding {@code token} at position {@code p} (positions must come in order from 0). */
    public float[] step(int token, int p) {
        int d = c.d();
        float[] x = w.input(token, p);
        for (int l = 0; l < c.layers(); l++) {
            GptWeights.Layer layer = w.layers.get(l);
            float[] h = layerNorm(x, layer.ln1g(), layer.ln1b());
            float[] qkv = gemv(layer.wQkv(), h, layer.bQkv(), 3 * d, d);
            System.arraycopy(qkv, d, keys[l], p * d, d);
            System.arraycopy(qkv, 2 * d, values[l], p * d, d);
            float[] att = attention(qkv, keys[l], values[l], p);
            float[] proj = gemv(layer.wProj(), att, layer.bProj(), d, d);
            for (int i = 0; i < d; i++) {
                x[i] += proj[i];
            }
            float[] h2 = layerNorm(x, layer.ln2g(), layer.ln2b());
            float[] up = gemv(layer.wUp(), h2, layer.bUp(), c.mlp(), d);
            for (int i = 0; i < up.length; i++) {
                up[i] = gelu(up[i]);
            }
            float[] down = gemv(layer.wDown(), up, layer.bDown(), d, c.mlp());
            for (int i = 0; i < d; i++) {
                x[i] += down[i];
            }
        }
        float[] hf = layerNorm(x, w.lnfG, w.lnfB);
        return gemv(w.wte, hf, new float[c.vocab()], c.vocab(), d);
    }

    static float gelu(float z) {
        return (float) (0.5 * z * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (z + 0.044715 * z * z * z))));
    }

    /** {@code x} normalized to mean 0 and variance 1 (plus 1e-5), then scaled by {@code g} and shifted by {@code b}. */
    static float[] layerNorm(float[] x, float[] g, float[] b) {
        float mean = 0;
        for (float v : x) {
            mean += v;
        }
        mean /= x.length;
        float var = 0;
        for (float v : x) {
            var += (v - mean) * (v - mean);
        }
        var /= x.length;
        float inv = (float) (1 / Math.sqrt(var + 1e-5));
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = (x[i] - mean) * inv * g[i] + b[i];
        }
        return y;
    }

    private static float[] gemv(float[] weights, float[] x, float[] bias, int rows, int cols) {
        float[] y = new float[rows];
        for (int r = 0; r < rows; r++) {
            float acc = 0;
            int base = r * cols;
            for (int j = 0; j < cols; j++) {
                acc += weights[base + j] * x[j];
            }
            y[r] = acc + bias[r];
        }
        return y;
    }

    private float[] attention(float[] qkv, float[] k, float[] v, int p) {
        int d = c.d();
        int hd = c.headDim();
        float scale = (float) (1 / Math.sqrt(hd));
        float[] out = new float[d];
        float[] s = new float[p + 1];
        for (int h = 0; h < c.heads(); h++) {
            float max = Float.NEGATIVE_INFINITY;
            for (int t = 0; t <= p; t++) {
                float acc = 0;
                for (int j = 0; j < hd; j++) {
                    acc += qkv[h * hd + j] * k[t * d + h * hd + j];
                }
                s[t] = acc * scale;
                max = Math.max(max, s[t]);
            }
            float sum = 0;
            for (int t = 0; t <= p; t++) {
                s[t] = (float) Math.exp(s[t] - max);
                sum += s[t];
            }
            for (int j = 0; j < hd; j++) {
                float acc = 0;
                for (int t = 0; t <= p; t++) {
                    acc += s[t] * v[t * d + h * hd + j];
                }
                out[h * hd + j] = acc / sum;
            }
        }
        return out;
    }
}
