package dev.graphrt.examples.gpt;

/**
 * The shapes of the decoder: {@code layers} blocks of width {@code d} with {@code heads} attention heads, a context of
 * up to {@code ctx} positions and a vocabulary of {@code vocab} tokens; the MLP is {@code 4 d} wide. fp32 throughout.
 */
public record GptConfig(int layers, int d, int heads, int ctx, int vocab) {
    /** Rows of the tied output embedding per logits launch: each chunk's weights stay under WebGPU's 128 MiB binding. */
    public static final int VOCAB_CHUNK = 32_768;

    public GptConfig {
        if (layers < 1 || d < 1 || heads < 1 || ctx < 1 || vocab < 1) {
            throw new IllegalArgumentException(
                    "every size must be positive: " + layers + ", " + d + ", " + heads + ", " + ctx + ", " + vocab);
        }
        if (d % heads != 0 || 256 % (d / heads) != 0) {
            throw new IllegalArgumentException(
                    "d / heads must divide 256 (the attention kernel's block), was " + d + " / " + heads);
        }
        if (4 * d > GptKernels.MAX_COLS) {
            throw new IllegalArgumentException("d must be at most " + GptKernels.MAX_COLS / 4
                    + " (the gemv kernels hold the MLP's input of 4 d floats in shared memory), was " + d);
        }
        if (ctx > 1024) {
            throw new IllegalArgumentException(
                    "ctx must be at most 1024 (the attention kernel's score buffer), was " + ctx);
        }
    }

    /** GPT-2 small: 12 layers, d = 768, 12 heads, context 1,024, vocabulary 50,257. */
    public static GptConfig gpt2Small() {
        return new GptConfig(12, 768, 12, 1024, 50_257);
    }

    /** The configuration CI runs on the CPU: 2 layers, d = 64, 4 heads, context 64, vocabulary 512. */
    public static GptConfig tiny() {
        return new GptConfig(2, 64, 4, 64, 512);
    }

    public int headDim() {
        return d / heads;
    }

    public int mlp() {
        return 4 * d;
    }

    /** The token fed at position {@code k}: a fixed sequence, so every implementation decodes the same input. */
    public int token(int k) {
        return (int) (((long) k * 7919 + 13) % vocab);
    }
}
