package dev.graphrt.examples.gpt;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The decoder on a device: its weights uploaded once, the KV caches preallocated, and one token's step as a sequence
 * of launches ({@link #step}) that reads its input vector and its position from two small buffers. A host rewrites
 * those two ({@link #feed}) before every step, so one captured graph of the step serves every position.
 *
 * <p>Per layer: QKV projection of the layer-normalized input, attention (per chunk of positions, storing the new key
 * and value, then the merge), output projection plus residual, MLP up of the layer-normalized sum with GELU, MLP down
 * plus residual; then the logits of the normalized output against the tied embedding, in chunks of
 * {@link GptConfig#VOCAB_CHUNK} rows. Each layer norm is computed by the gemv that reads it ({@link GptKernels}). On
 * cuda, hip and cpu the attention merges its chunks in the same launch ({@link GptAttentionKernels#ATTENTION_MERGED}; wgpu
 * launches the merge apart, as does {@code -Dgpt.fusedMerge=false}). That is {@code 5 L + ceil(V / chunk)} launches a
 * token, or {@code 6 L + ceil(V / chunk)} with the merge apart. On cuda and hip, for the shapes it is written for,
 * every layer is one launch instead ({@link GptLayerKernels}; {@code -Dgpt.layerKernel=false} keeps the kernels one by
 * one): {@code 1 + ceil(V / chunk)} launches a token.
 */
public final class GptDecoder implements AutoCloseable {
    private record LayerBuffers(
            Buffer ln1g,
            Buffer ln1b,
            Buffer wQkv,
            Buffer bQkv,
            Buffer wProj,
            Buffer bProj,
            Buffer ln2g,
            Buffer ln2b,
            Buffer wUp,
            Buffer bUp,
            Buffer wDown,
            Buffer bDown,
            Buffer keys,
            Buffer values) {}

    private static final int GELU = 1;
    private static final int RESIDUAL = 2;
    private static final int NORMALIZE = 4;

    /**
     * At most this many workgroups a WGSL gemv (one row at a time each), unless {@code -Dgpt.workgroups} says
     * otherwise: each normalizes its input once for all its rows. Measured on the H200 with this knob (replay µs a
     * token): 2,048 gave 1,511 and 1,503, 16,384 gave 1,397, no cap (a workgroup a row) 1,418.
     */
    private static final int WORKGROUPS = 16_384;

    /**
     * A CUDA C gemv launches at most this many blocks a compute unit ({@code -Dgpt.blocksPerUnit}): four blocks of
     * 256 threads are what an H200 SM keeps resident at the gemv's 64 registers, so the grid is one wave and only the
     * logits gemvs (thousands of row groups) loop.
     */
    private static final int BLOCKS_PER_UNIT = 4;

    private final GptConfig c;
    private final boolean workgroupPerRow;
    /** Whether a gemv of few rows spreads them over more threads to fill the compute units ({@code -Dgpt.spread}). */
    private final boolean spread;
    /** At most this many blocks a CUDA C gemv: each takes several row groups, normalizing its input once. */
    private final int gemvBlocks;

    private final boolean bf16;
    private final int threadsPerRowAtLeast;
    /** The device's compute units: a gemv spreads its rows over more threads until its blocks fill them. */
    private final int units;
    /** Whether the attention merges its chunks in its own launch (one word a head in {@link #count}). */
    private final boolean fusedMerge;

    private final int workgroups;
    private final Kernel gemv;
    /** The gemv compiled for each shape the step uses, keyed by {@link #shapeKey} (cuda and hip; else empty). */
    private final Map<Long, Kernel> gemvOfShape = new HashMap<>();

    /** The attention and its merge as two launches: null when {@link #fusedMerge}. */
    private final Kernel attention;

    private final Kernel merge;
    /** The attention with its merge inside: null unless {@link #fusedMerge}. */
    private final Kernel attentionMerged;

    /**
     * Every layer in one launch ({@link GptLayerKernels}, cuda and hip, {@code -Dgpt.layerKernel}; the layers' buffers
     * are then one stacked record in {@link #layers}), or null: the step is then its kernels one by one.
     */
    private final Kernel layer;

    private final Kernel embed;
    private final Kernel argmax;
    private final Buffer wpe;
    private final Buffer token;
    private final Buffer generated;
    private final List<LayerBuffers> layers = new ArrayList<>();
    private final List<Buffer> wteChunks = new ArrayList<>();
    private final List<Buffer> logitChunks = new ArrayList<>();
    private final List<Buffer> owned = new ArrayList<>();
    private final Buffer lnfG;
    private final Buffer lnfB;
    private final Buffer input;
    private final Buffer position;
    private final Buffer xm;
    private final Buffer xb;
    private final Buffer xc;
    private final Buffer qkv;
    private final Buffer att;
    private final Buffer parts;
    private final Buffer up;
    private final Buffer zeros;
    private final Buffer count;
    /** The layer kernel's grid barrier: one word, zero between launches. */
    private final Buffer barrier;
    /** Where a traced layer kernel writes its blocks' clocks ({@code -Dgpt.layerTrace=true}), or null. */
    private final Buffer trace;

    /** Uploads {@code weights} through {@code stream} and compiles the kernels on {@code runtime}. */
    public GptDecoder(GraphRuntime runtime, GpuStream stream, GptWeights weights) {
        this(runtime, stream, weights, false);
    }

    /**
     * As above, with every kernel opted into programmatic dependent launch when {@code programmaticDependent}
     * ({@link GptDependentLaunch#programmaticDependent}): the same results, and on cuda on an H200 less time between kernels.
     */
    public GptDecoder(GraphRuntime runtime, GpuStream stream, GptWeights weights, boolean programmaticDependent) {
        this(runtime, stream, weights, programmaticDependent, false);
    }

    /**
     * As above, with the weight matrices (the four per layer and the tied embedding) held as bf16 when {@code bf16}:
     * each rounded to nearest and packed two to a word ({@link GptBf16Kernels#packBf16}), read by the bf16 kernels
     * with fp32 arithmetic; half the bytes a token streams. Biases, norms and the position embedding stay fp32. The
     * step then computes exactly what {@link GptWeights#roundedToBf16} computes in fp32.
     */
    public GptDecoder(
            GraphRuntime runtime, GpuStream stream, GptWeights weights, boolean programmaticDependent, boolean bf16) {
        this.c = weights.config;
        this.bf16 = bf16;
        this.threadsPerRowAtLeast = Integer.getInteger("gpt.tpr", 32); // a tuning knob: GptKernels#threadsPerRow
        GptKernels.threadsPerRow(1, 1, threadsPerRowAtLeast); // refuses a bad value before anything is uploaded
        this.workgroups = Integer.getInteger("gpt.workgroups", WORKGROUPS);
        if (workgroups < 1) {
            throw new IllegalArgumentException("gpt.workgroups must be positive, was " + workgroups);
        }
        this.workgroupPerRow = runtime.backendName().equals("wgpu");
        this.fusedMerge = knob("gpt.fusedMerge") && !workgroupPerRow; // the knob is checked on every backend
        this.units = Math.max(1, runtime.device().computeUnits());
        this.spread = knob("gpt.spread");
        int perUnit = Integer.getInteger("gpt.blocksPerUnit", BLOCKS_PER_UNIT); // a tuning knob
        if (perUnit < 1) {
            throw new IllegalArgumentException("gpt.blocksPerUnit must be positive, was " + perUnit);
        }
        this.gemvBlocks = switch (runtime.backendName()) {
            case "cuda", "hip" -> Math.max(1, runtime.device().computeUnits()) * perUnit;
            default -> Integer.MAX_VALUE; // the Java gemv does one row group a block
        };
        String trigger = System.getProperty("gpt.trigger", "exit"); // a tuning knob: GptDependentLaunch
        if (!trigger.equals("late") && !trigger.equals("exit")) {
            throw new IllegalArgumentException("gpt.trigger must be late or exit, was " + trigger);
        }
        boolean lateTrigger = trigger.equals("late");
        UnaryOperator<KernelSource> opt =
                programmaticDependent ? k -> GptDependentLaunch.programmaticDependent(k, lateTrigger) : k -> k;
        // On cuda and hip each kernel is compiled for the shapes it runs (-Dgpt.fixedShapes=false: one for all)
        boolean fixed = knob("gpt.fixedShapes")
                && (runtime.backendName().equals("cuda")
                        || runtime.backendName().equals("hip"));
        UnaryOperator<KernelSource> shaped = fixed
                ? k -> GptAttentionKernels.attentionOfShape(
                        k, c.d(), c.heads(), GptAttentionKernels.ATTENTION_CHUNK, c.ctx())
                : k -> k;
        KernelSource gemvSource = bf16 ? GptBf16Kernels.GEMV_BF16 : GptKernels.GEMV;
        gemv = runtime.compile(opt.apply(gemvSource));
        // the attention in one launch, or in two with the merge apart: only the kernels the step launches
        attentionMerged =
                fusedMerge ? runtime.compile(opt.apply(shaped.apply(GptAttentionKernels.ATTENTION_MERGED))) : null;
        attention = fusedMerge ? null : runtime.compile(opt.apply(shaped.apply(GptAttentionKernels.ATTENTION)));
        merge = fusedMerge ? null : runtime.compile(opt.apply(shaped.apply(GptAttentionKernels.MERGE)));
        // the layers kernel's knobs, checked on every backend: whether to use it, its trace, its barrier's ordering
        boolean layered = knob("gpt.layerKernel");
        boolean traced = knob("gpt.layerTrace", false);
        boolean fenced = choice("gpt.layerBarrier", "acquire", "fenced").equals("fenced");
        layer = fixed && layered && GptLayerKernels.supports(c, GptAttentionKernels.ATTENTION_CHUNK)
                ? runtime.compile(opt.apply(GptLayerKernels.layer(
                        bf16,
                        c,
                        GptAttentionKernels.ATTENTION_CHUNK,
                        units,
                        new GptLayerKernels.Variant(traced, fenced))))
                : null;
        if (fixed) {
            // rows, columns and flags, as step() launches them
            List<int[]> shapes = new ArrayList<>();
            shapes.add(new int[] {3 * c.d(), c.d(), NORMALIZE});
            shapes.add(new int[] {c.d(), c.d(), RESIDUAL});
            shapes.add(new int[] {c.mlp(), c.d(), NORMALIZE | GELU});
            shapes.add(new int[] {c.d(), c.mlp(), RESIDUAL});
            for (int row = 0; row < c.vocab(); row += GptConfig.VOCAB_CHUNK) {
                shapes.add(new int[] {Math.min(GptConfig.VOCAB_CHUNK, c.vocab() - row), c.d(), NORMALIZE});
            }
            for (int[] shape : shapes) {
                int tpr = threadsPerRow(shape[0], shape[1]);
                gemvOfShape.computeIfAbsent(
                        shapeKey(shape[0], shape[1], shape[2]),
                        key -> runtime.compile(
                                opt.apply(GptKernels.gemvOfShape(gemvSource, shape[0], shape[1], tpr, shape[2]))));
            }
        }
        embed = runtime.compile(opt.apply(bf16 ? GptBf16Kernels.EMBED_BF16 : GptGenerationKernels.EMBED));
        argmax = runtime.compile(opt.apply(GptGenerationKernels.ARGMAX));
        int d = c.d();
        if (layer != null) { // one record of every layer's buffers stacked, layer after layer, as the kernel reads them
            layers.add(uploadLayers(stream, kind -> stacked(weights, kind), c.layers()));
        } else {
            for (GptWeights.Layer l : weights.layers) {
                layers.add(uploadLayers(stream, kind -> kind.apply(l), 1));
            }
        }
        for (int row = 0; row < c.vocab(); row += GptConfig.VOCAB_CHUNK) {
            int rows = Math.min(GptConfig.VOCAB_CHUNK, c.vocab() - row);
            wteChunks.add(matrix(stream, Arrays.copyOfRange(weights.wte, row * d, (row + rows) * d)));
            logitChunks.add(own(stream.allocate(rows * 4L)));
        }
        lnfG = up(stream, weights.lnfG);
        lnfB = up(stream, weights.lnfB);
        input = own(stream.allocate(d * 4L));
        position = own(stream.upload(new int[] {0}));
        wpe = up(stream, weights.wpe);
        token = own(stream.upload(new int[] {0}));
        generated = own(stream.upload(new int[c.ctx()]));
        xm = own(stream.allocate(d * 4L));
        xb = own(stream.allocate(d * 4L));
        xc = own(stream.allocate(d * 4L));
        qkv = own(stream.allocate(3L * d * 4));
        att = own(stream.allocate(d * 4L));
        parts = own(stream.allocate((long) c.heads() * chunks() * (c.headDim() + 2) * 4));
        up = own(stream.allocate(c.mlp() * 4L));
        zeros = own(stream.upload(new float[Math.max(c.mlp(), Math.min(c.vocab(), GptConfig.VOCAB_CHUNK))]));
        count = own(stream.upload(new int[c.heads()]));
        barrier = own(stream.upload(new int[1]));
        trace = layer != null && traced ? own(stream.allocate((long) units * GptLayerKernels.TRACE_WORDS * 8)) : null;
        stream.synchronize();
    }

    /**
     * A layer's buffers, or several layers' stacked: {@code of} gives the host array of each kind of weight, and the
     * caches hold {@code caches} layers.
     */
    private LayerBuffers uploadLayers(
            GpuStream stream, Function<Function<GptWeights.Layer, float[]>, float[]> of, int caches) {
        int d = c.d();
        return new LayerBuffers(
                up(stream, of.apply(GptWeights.Layer::ln1g)),
                up(stream, of.apply(GptWeights.Layer::ln1b)),
                matrix(stream, of.apply(GptWeights.Layer::wQkv)),
                up(stream, of.apply(GptWeights.Layer::bQkv)),
                matrix(stream, of.apply(GptWeights.Layer::wProj)),
                up(stream, of.apply(GptWeights.Layer::bProj)),
                up(stream, of.apply(GptWeights.Layer::ln2g)),
                up(stream, of.apply(GptWeights.Layer::ln2b)),
                matrix(stream, of.apply(GptWeights.Layer::wUp)),
                up(stream, of.apply(GptWeights.Layer::bUp)),
                matrix(stream, of.apply(GptWeights.Layer::wDown)),
                up(stream, of.apply(GptWeights.Layer::bDown)),
                own(stream.upload(new float[caches * c.ctx() * d])),
                own(stream.upload(new float[caches * c.ctx() * d])));
    }

    /** One array of a kind, every layer's after the one before's. */
    private static float[] stacked(GptWeights weights, Function<GptWeights.Layer, float[]> kind) {
        int length = kind.apply(weights.layers.get(0)).length;
        float[] all = new float[weights.layers.size() * length];
        for (int l = 0; l < weights.layers.size(); l++) {
            System.arraycopy(kind.apply(weights.layers.get(l)), 0, all, l * length, length);
        }
        return all;
    }

    private Buffer own(Buffer buffer) {
        owned.add(buffer);
        return buffer;
    }

    private Buffer up(GpuStream stream, float[] data) {
        return own(stream.upload(data));
    }

    /** A weight matrix: as it is, or packed as bf16 when this decoder holds its matrices so. */
    private Buffer matrix(GpuStream stream, float[] data) {
        return bf16 ? own(stream.upload(GptBf16Kernels.packBf16(data))) : up(stream, data);
    }

    /** Writes the input of {@code token} at position {@code p} into the step's two input buffers. */
    public void feed(GpuStream stream, GptWeights weights, int token, int p) {
        stream.write(input, weights.input(token, p));
        stream.write(position, new int[] {p});
    }

    /** Enqueues (or, while {@code s} captures, records) one token's step. */
    public void step(GpuStream s) {
        Buffer cur = layer != null ? layersAtOnce(s) : layersOneByOne(s);
        for (int i = 0; i < wteChunks.size(); i++) {
            int rows = Math.min(GptConfig.VOCAB_CHUNK, c.vocab() - i * GptConfig.VOCAB_CHUNK);
            gemv(s, wteChunks.get(i), cur, lnfG, lnfB, zeros, xm, logitChunks.get(i), rows, c.d(), NORMALIZE);
        }
    }

    /** Every layer in one launch of {@link #layer}; returns the last layer's output (layer l writes xb or xc). */
    private Buffer layersAtOnce(GpuStream s) {
        LayerBuffers w = layers.get(0);
        s.launch(
                layer,
                new LaunchDims(units, 1, 1, GptLayerKernels.THREADS, 1, 1),
                KernelArgs.of(layerBuffers(
                                input,
                                xb,
                                xc,
                                w.ln1g(),
                                w.ln1b(),
                                w.wQkv(),
                                w.bQkv(),
                                w.keys(),
                                w.values(),
                                position,
                                qkv,
                                parts,
                                count,
                                att,
                                w.wProj(),
                                w.bProj(),
                                xm,
                                w.ln2g(),
                                w.ln2b(),
                                w.wUp(),
                                w.bUp(),
                                up,
                                w.wDown(),
                                w.bDown(),
                                barrier))
                        .info(
                                c.d(),
                                c.heads(),
                                c.mlp(),
                                c.ctx(),
                                GptAttentionKernels.ATTENTION_CHUNK,
                                units,
                                c.layers()));
        return c.layers() % 2 == 1 ? xb : xc;
    }

    /** Each layer's kernels one by one; returns the last layer's output. */
    private Buffer layersOneByOne(GpuStream s) {
        int d = c.d();
        Buffer cur = input;
        for (int l = 0; l < c.layers(); l++) {
            LayerBuffers w = layers.get(l);
            Buffer next = l % 2 == 0 ? xb : xc;
            gemv(s, w.wQkv(), cur, w.ln1g(), w.ln1b(), w.bQkv(), zeros, qkv, 3 * d, d, NORMALIZE);
            LaunchDims blocks = new LaunchDims(c.heads() * chunks(), 1, 1, 256, 1, 1);
            if (fusedMerge) {
                s.launch(
                        attentionMerged,
                        blocks,
                        KernelArgs.of(qkv, w.keys(), w.values(), position, parts, count, att)
                                .info(d, c.heads(), GptAttentionKernels.ATTENTION_CHUNK, c.ctx()));
            } else {
                s.launch(
                        attention,
                        blocks,
                        KernelArgs.of(qkv, w.keys(), w.values(), position, parts)
                                .info(d, c.heads(), GptAttentionKernels.ATTENTION_CHUNK, c.ctx()));
                s.launch(
                        merge,
                        new LaunchDims(c.heads(), 1, 1, 256, 1, 1),
                        KernelArgs.of(parts, position, att).info(d, c.heads(), GptAttentionKernels.ATTENTION_CHUNK));
            }
            gemv(s, w.wProj(), att, lnfG, lnfB, w.bProj(), cur, xm, d, d, RESIDUAL);
            gemv(s, w.wUp(), xm, w.ln2g(), w.ln2b(), w.bUp(), zeros, up, c.mlp(), d, NORMALIZE | GELU);
            gemv(s, w.wDown(), up, lnfG, lnfB, w.bDown(), xm, next, d, c.mlp(), RESIDUAL);
            cur = next;
        }
        return cur;
    }

    /** The layer kernel's buffers, and its trace buffer last when it is traced. */
    private Buffer[] layerBuffers(Buffer... buffers) {
        if (trace == null) {
            return buffers;
        }
        Buffer[] traced = Arrays.copyOf(buffers, buffers.length + 1);
        traced[buffers.length] = trace;
        return traced;
    }

    /**
     * Where the last layer kernel's time went, from its trace ({@code -Dgpt.layerTrace=true}; waits for the stream),
     * or empty when the step is not traced.
     */
    public java.util.Optional<String> layerTrace(GpuStream stream) {
        if (trace == null) {
            return java.util.Optional.empty();
        }
        int[] words = stream.readInts(trace);
        long[] longs = new long[words.length / 2];
        for (int i = 0; i < longs.length; i++) {
            longs[i] = (words[2 * i] & 0xFFFF_FFFFL) | (long) words[2 * i + 1] << 32;
        }
        return java.util.Optional.of(GptLayerKernels.summary(longs, units));
    }

    /** The launches of one step. */
    public int launchesPerStep() {
        return (layer != null ? 1 : (fusedMerge ? 5 : 6) * c.layers()) + wteChunks.size();
    }

    /**
     * Starts greedy generation on the device: the next {@link #generatingStep} decodes {@code first} at position
     * {@code p}.
     */
    public void startGeneration(GpuStream stream, int first, int p) {
        if (wteChunks.size() > 2) {
            throw new IllegalStateException("greedy generation on the device reads the embedding in at most two chunks"
                    + " of " + GptConfig.VOCAB_CHUNK + " rows; this vocabulary has " + c.vocab());
        }
        if (first < 0 || first >= c.vocab() || p < 0 || p >= c.ctx()) {
            throw new IllegalArgumentException(
                    "first token " + first + " and position " + p + " must be below " + c.vocab() + " and " + c.ctx());
        }
        stream.write(token, new int[] {first});
        stream.write(position, new int[] {p});
    }

    /**
     * One step of greedy generation, all on the device: the input from the token and position buffers, the step, and
     * the largest logit as the next token, kept in {@link #generated} at its position, the position moved on. Replayed
     * from a graph, token after token, it needs nothing from the host (at most up to the context's end).
     */
    public void generatingStep(GpuStream s) {
        Buffer secondChunk = wteChunks.size() > 1 ? wteChunks.get(1) : zeros;
        s.launch(
                embed,
                LaunchDims.linear(c.d(), 256),
                KernelArgs.of(wteChunks.get(0), secondChunk, wpe, token, position, input)
                        .info(c.d(), GptConfig.VOCAB_CHUNK));
        step(s);
        Buffer secondLogits = logitChunks.size() > 1 ? logitChunks.get(1) : zeros;
        s.launch(
                argmax,
                single(),
                KernelArgs.of(logitChunks.get(0), secondLogits, token, position, generated)
                        .info(c.vocab(), GptConfig.VOCAB_CHUNK, c.ctx()));
    }

    /** The tokens greedy generation chose at positions {@code from} to {@code from + count - 1} (waits for them). */
    public int[] generated(GpuStream stream, int from, int count) {
        return Arrays.copyOfRange(stream.readInts(generated), from, from + count);
    }

    /** Attention blocks per head: the context in chunks of {@link GptAttentionKernels#ATTENTION_CHUNK} positions. */
    private int chunks() {
        return (c.ctx() + GptAttentionKernels.ATTENTION_CHUNK - 1) / GptAttentionKernels.ATTENTION_CHUNK;
    }

    /** The logits of the last step (waits for it). */
    public float[] logits(GpuStream stream) {
        float[] out = new float[c.vocab()];
        for (int i = 0; i < logitChunks.size(); i++) {
            float[] chunk = stream.readFloats(logitChunks.get(i));
            int rows = Math.min(GptConfig.VOCAB_CHUNK, c.vocab() - i * GptConfig.VOCAB_CHUNK);
            System.arraycopy(chunk, 0, out, i * GptConfig.VOCAB_CHUNK, rows);
        }
        return out;
    }

    /**
     * {@code y = w x' + bias}, then GELU and the residual {@code r} as {@code flags} ask, {@code x'} being {@code x}
     * layer-normalized with {@code g} and {@code b} under {@link #NORMALIZE}. Buffers a launch does not read ({@code g}
     * and {@code b} without NORMALIZE, {@code r} without RESIDUAL) are still distinct ones: no buffer is bound twice.
     */
    private void gemv(
            GpuStream s,
            Buffer w,
            Buffer x,
            Buffer g,
            Buffer b,
            Buffer bias,
            Buffer r,
            Buffer y,
            int rows,
            int cols,
            int flags) {
        int tpr = threadsPerRow(rows, cols);
        LaunchDims dims = workgroupPerRow
                ? new LaunchDims(Math.min(rows, workgroups), 1, 1, 64, 1, 1)
                : new LaunchDims(Math.min((rows + 256 / tpr - 1) / (256 / tpr), gemvBlocks), 1, 1, 256, 1, 1);
        s.launch(
                gemvOfShape.getOrDefault(shapeKey(rows, cols, flags), gemv),
                dims,
                KernelArgs.of(w, x, g, b, bias, r, y).info(rows, cols, flags, tpr));
    }

    private int threadsPerRow(int rows, int cols) {
        return GptKernels.threadsPerRow(cols, bf16 ? 8 : 4, threadsPerRowAtLeast, rows, spread ? units : 1);
    }

    /** A tuning knob that is on unless {@code -Dname=false}; any other value than true or false is refused. */
    private static boolean knob(String name) {
        return knob(name, true);
    }

    /** A tuning knob that is {@code byDefault} unless set to {@code other}; any other value is refused. */
    private static String choice(String name, String byDefault, String other) {
        String value = System.getProperty(name, byDefault);
        if (!value.equals(byDefault) && !value.equals(other)) {
            throw new IllegalArgumentException(name + " must be " + byDefault + " or " + other + ", was " + value);
        }
        return value;
    }

    /** A tuning knob that is {@code byDefault} unless set; any other value than true or false is refused. */
    private static boolean knob(String name, boolean byDefault) {
        String value = System.getProperty(name, String.valueOf(byDefault));
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(name + " must be true or false, was " + value);
        }
        return value.equals("true");
    }

    /** A gemv's shape as one key: rows, columns (each below 2^28) and flags (3 bits). */
    private static long shapeKey(int rows, int cols, int flags) {
        return (long) rows << 31 | (long) cols << 3 | flags;
    }

    private static LaunchDims single() {
        return new LaunchDims(1, 1, 1, 256, 1, 1);
    }

    @Override
    public void close() {
        for (Buffer buffer : owned) {
            buffer.close();
        }
    }
}
