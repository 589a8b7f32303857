package dev.graphrt.examples.gpt;

import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import dev.graphrt.examples.bench.DecodeBench;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real decode loop (issue 20): a GPT-2-shaped decoder's token step captured once and replayed for every token, its
 * position read from a buffer the host rewrites before each replay. It first checks the logits of the first
 * {@value #CHECKED} tokens, eager and replayed, against the plain-Java reference ({@link GptReference}), then times
 * tokens at the last position of the context (attention over all of it), eager against replay, in interleaved rounds.
 *
 * <p>Arguments: {@code [backend|best] [gpt2|tiny|auto] [tokens per round] [rounds] [--weights model.safetensors]};
 * default {@code best auto 64 5}, where {@code auto} is GPT-2 small on a GPU backend and the tiny model on the
 * pure-Java backends (cpu, template), whose Java kernels would take minutes over GPT-2's 124M weights. With
 * {@code --weights} the model is the file's (a Hugging Face GPT-2 safetensors file, {@link GptWeights#fromSafetensors})
 * and the model argument is ignored; without it, seeded random weights. Exits 1 when a check fails.
 */
public final class GptDecodeDemo {
    /** Tokens whose logits are checked against the reference. */
    public static final int CHECKED = 8;
    /** The largest error allowed, relative to the largest logit of the reference. */
    public static final double TOLERANCE = 1e-4;

    private GptDecodeDemo() {}

    /** What one run measured. */
    public record Result(
            String device,
            int launches,
            double eagerError,
            double replayError,
            double eagerMicros,
            double replayMicros) {
        public boolean exactEnough() {
            return eagerError <= TOLERANCE && replayError <= TOLERANCE;
        }
    }

    public static void main(String[] given) throws IOException {
        java.util.List<String> list = new java.util.ArrayList<>(java.util.Arrays.asList(given));
        Path weightsFile = null;
        int option = list.indexOf("--weights");
        if (option >= 0) {
            if (option + 1 >= list.size()) {
                throw new IllegalArgumentException("--weights needs a file: --weights model.safetensors");
            }
            weightsFile = Path.of(list.get(option + 1));
            list.subList(option, option + 2).clear();
        }
        String[] args = list.toArray(String[]::new);
        String backend = args.length > 0 ? args[0] : "best";
        String model = args.length > 1 ? args[1] : "auto";
        int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        RuntimeOptions options = backend.equals("best")
                ? RuntimeOptions.defaults()
                : RuntimeOptions.defaults().backend(backend);
        for (String line : GraphRT.describeProviders()) {
            System.out.println("provider " + line);
        }
        GptConfig config = switch (model) {
            case "tiny" -> GptConfig.tiny();
            case "gpt2" -> GptConfig.gpt2Small();
            case "auto" -> {
                try (GraphRuntime probe = GraphRT.open(options)) {
                    yield probe.backendName().equals("cpu")
                                    || probe.backendName().equals("template")
                            ? GptConfig.tiny()
                            : GptConfig.gpt2Small();
                }
            }
            default -> throw new IllegalArgumentException("model must be gpt2, tiny or auto, was " + model);
        };
        GptWeights weights;
        if (weightsFile != null) {
            weights = GptWeights.fromSafetensors(weightsFile);
            System.out.println("model: " + weights.config + "; weights from " + weightsFile);
        } else {
            System.out.println("model: " + config + "; weights from seed " + GptWeights.SEED);
            weights = new GptWeights(config);
        }
        boolean dependent = Boolean.getBoolean("gpt.dependent");
        boolean bf16 = Boolean.getBoolean("gpt.bf16");
        GptWeights fp32 = weights;
        if (bf16) { // the device holds bf16 matrices; the reference checks it against the same weights rounded
            weights = weights.roundedToBf16();
            System.out.printf(
                    "weights: bf16 matrices with fp32 arithmetic (-Dgpt.bf16=true); the rounded model's first logits "
                            + "are within %.2e of the fp32 model's (relative to the largest logit; target 1e-2)%n",
                    bf16Distance(fp32, weights));
        }
        System.out.println("kernels: "
                + (dependent ? "opted into programmatic dependent launch (-Dgpt.dependent=true)" : "plain"));
        Result result = run(options, weights, tokens, rounds, dependent, bf16);
        System.out.println("device: " + result.device());
        System.out.printf(
                "logits of the first %d tokens against plain Java: max error %.2e eager, %.2e replayed "
                        + "(relative to the largest logit; allowed %.0e)%n",
                CHECKED, result.eagerError(), result.replayError(), TOLERANCE);
        System.out.println();
        System.out.println("| backend | model | launches/token | eager µs/token | replay µs/token | eager tokens/s "
                + "| replay tokens/s | replay speed-up |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        System.out.printf(
                "| %s | %d x %d, ctx %d, vocab %d | %d | %.1f | %.1f | %.0f | %.0f | %.2fx |%n",
                result.device().split(":")[0],
                config.layers(),
                config.d(),
                config.ctx(),
                config.vocab(),
                result.launches(),
                result.eagerMicros(),
                result.replayMicros(),
                1e6 / result.eagerMicros(),
                1e6 / result.replayMicros(),
                result.eagerMicros() / result.replayMicros());
        Generation generation = generate(options, weights, Math.min(tokens, weights.config.ctx()), dependent, bf16);
        System.out.printf(
                "%ngreedy generation on the device: %d tokens from position 0, one replay each with no host access "
                        + "between them: %.1f µs/token; the first %d tokens %s plain Java's (%s)%n",
                generation.tokens().length,
                generation.micros(),
                generation.checked(),
                generation.matches() ? "equal" : "DIFFER FROM",
                java.util.Arrays.toString(java.util.Arrays.copyOf(generation.tokens(), generation.checked())));
        System.exit(result.exactEnough() && generation.matches() ? 0 : 1);
    }

    /** Opens a runtime with {@code options}, checks the first tokens and times eager against replay. */
    public static Result run(RuntimeOptions options, GptWeights weights, int tokens, int rounds) {
        return run(options, weights, tokens, rounds, false);
    }

    /** As above, with every kernel opted into programmatic dependent launch when {@code programmaticDependent}. */
    public static Result run(
            RuntimeOptions options, GptWeights weights, int tokens, int rounds, boolean programmaticDependent) {
        return run(options, weights, tokens, rounds, programmaticDependent, false);
    }

    /**
     * As above, the decoder holding its matrices as bf16 when {@code bf16} ({@link GptDecoder}); pass weights already
     * {@link GptWeights#roundedToBf16 rounded}, so the reference checks the bf16 decode exactly.
     */
    public static Result run(
            RuntimeOptions options,
            GptWeights weights,
            int tokens,
            int rounds,
            boolean programmaticDependent,
            boolean bf16) {
        GptConfig c = weights.config;
        try (GraphRuntime runtime = GraphRT.open(options);
                GpuStream stream = runtime.openStream();
                GptDecoder decoder = new GptDecoder(runtime, stream, weights, programmaticDependent, bf16)) {
            if (rounds > 1) { // timed rounds: the replay and synchronize paths compiled before any token is timed,
                // since the rounds call each a few hundred times only (a one-round run checks the logits alone)
                dev.graphrt.examples.bench.HostPathWarmup.warm(runtime, stream);
            }
            GptReference eagerReference = new GptReference(weights);
            double eagerError = 0;
            for (int k = 0; k < CHECKED && k < c.ctx(); k++) {
                decoder.feed(stream, weights, c.token(k), k);
                decoder.step(stream);
                float[] logits = decoder.logits(stream);
                dump(logits, k);
                eagerError = Math.max(eagerError, error(logits, eagerReference.step(c.token(k), k)));
            }
            // a fresh cache for the replayed pass: the graph is captured at position 0 and replayed for every token
            GptReference replayReference = new GptReference(weights);
            decoder.feed(stream, weights, c.token(0), 0);
            double replayError = 0;
            try (Graph graph = stream.capture(CaptureOptions.defaults(), decoder::step)) {
                for (int k = 0; k < CHECKED && k < c.ctx(); k++) {
                    decoder.feed(stream, weights, c.token(k), k);
                    graph.replay();
                    replayError =
                            Math.max(replayError, error(decoder.logits(stream), replayReference.step(c.token(k), k)));
                }
                double[] eager = new double[rounds];
                double[] replay = new double[rounds];
                int last = c.ctx() - 1;
                for (int r = -1; r < rounds; r++) { // round -1 warms both paths up
                    double e = timeTokens(stream, tokens, k -> {
                        decoder.feed(stream, weights, c.token(k), last);
                        decoder.step(stream);
                    });
                    double g = timeTokens(stream, tokens, k -> {
                        decoder.feed(stream, weights, c.token(k), last);
                        graph.replay();
                    });
                    if (r >= 0) {
                        eager[r] = e;
                        replay[r] = g;
                    }
                }
                decoder.layerTrace(stream).ifPresent(System.out::println); // the last replay's last layer
                return new Result(
                        runtime.device().toString(),
                        decoder.launchesPerStep(),
                        eagerError,
                        replayError,
                        DecodeBench.median(eager),
                        DecodeBench.median(replay));
            }
        }
    }

    /** The largest logit difference of the first {@value #CHECKED} tokens between two models, relative to the largest. */
    static double bf16Distance(GptWeights fp32, GptWeights rounded) {
        GptReference a = new GptReference(fp32);
        GptReference b = new GptReference(rounded);
        double worst = 0;
        for (int k = 0; k < CHECKED && k < fp32.config.ctx(); k++) {
            int token = fp32.config.token(k);
            worst = Math.max(worst, error(b.step(token, k), a.step(token, k)));
        }
        return worst;
    }

    /** What greedy generation on the device chose, how long a token took, and whether the first ones match Java's. */
    public record Generation(int[] tokens, double micros, int checked, boolean matches) {}

    /**
     * Greedy generation on the device ({@link GptDecoder#generatingStep}): the step captured once, then replayed
     * {@code count} times from position 0 with nothing read or written by the host between the replays; the tokens
     * read at the end, the first {@value #CHECKED} compared with {@link #javaGreedy}.
     */
    public static Generation generate(
            RuntimeOptions options, GptWeights weights, int count, boolean programmaticDependent, boolean bf16) {
        int first = weights.config.token(0);
        try (GraphRuntime runtime = GraphRT.open(options);
                GpuStream stream = runtime.openStream();
                GptDecoder decoder = new GptDecoder(runtime, stream, weights, programmaticDependent, bf16)) {
            decoder.startGeneration(stream, first, 0);
            try (Graph graph = stream.capture(CaptureOptions.defaults(), decoder::generatingStep)) {
                decoder.startGeneration(stream, first, 0);
                stream.synchronize();
                long t0 = System.nanoTime();
                for (int k = 0; k < count; k++) {
                    graph.replay();
                }
                stream.synchronize();
                double micros = (System.nanoTime() - t0) / 1e3 / count;
                int[] tokens = decoder.generated(stream, 0, count);
                int checked = Math.min(CHECKED, count);
                boolean matches = java.util.Arrays.equals(
                        java.util.Arrays.copyOf(tokens, checked), javaGreedy(weights, first, checked));
                return new Generation(tokens, micros, checked, matches);
            }
        }
    }

    /**
     * Greedy generation in plain Java ({@link GptReference}): from {@code first} at position 0, each step's largest
     * logit is the next step's token; the {@code count} tokens chosen.
     */
    public static int[] javaGreedy(GptWeights weights, int first, int count) {
        GptReference reference = new GptReference(weights);
        int[] chosen = new int[count];
        int token = first;
        for (int k = 0; k < count; k++) {
            token = GptGenerationKernels.argmax(reference.step(token, k));
            chosen[k] = token;
        }
        return chosen;
    }

    /**
     * With {@code -Dgpt.logitsDir=DIR}, writes token {@code k}'s logits as little-endian float32 to
     * {@code DIR/graphrt-logits-k.bin}, beside the files decode_torch.py writes, to compare the two implementations.
     */
    private static void dump(float[] logits, int k) {
        String dir = System.getProperty("gpt.logitsDir");
        if (dir == null) {
            return;
        }
        ByteBuffer bytes = ByteBuffer.allocate(logits.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(logits);
        try {
            Files.createDirectories(Path.of(dir));
            Files.write(Path.of(dir, "graphrt-logits-" + k + ".bin"), bytes.array());
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }

    private interface Token {
        void run(int k);
    }

    /** µs per token over {@code tokens} tokens, from the first submission to the end of a final synchronize. */
    private static double timeTokens(GpuStream stream, int tokens, Token token) {
        stream.synchronize();
        long start = System.nanoTime();
        for (int k = 0; k < tokens; k++) {
            token.run(k);
        }
        stream.synchronize();
        return (System.nanoTime() - start) / 1e3 / tokens;
    }

    /** The largest difference, relative to the reference's largest magnitude. */
    static double error(float[] got, float[] want) {
        double maxDiff = 0;
        double maxRef = 0;
        for (int i = 0; i < want.length; i++) {
            maxDiff = Math.max(maxDiff, Math.abs((double) got[i] - want[i]));
            maxRef = Math.max(maxRef, Math.abs(want[i]));
        }
        return maxDiff / Math.max(maxRef, Double.MIN_NORMAL);
    }
}
