package dev.graphrt.examples.gpt;

import dev.graphrt.api.KernelSource;
import java.util.Arrays;
import java.util.List;

/**
 * Every GPT-2 layer of a token's step in one CUDA C launch ({@code layers}, and {@code layers_bf16} over bf16
 * matrices): per layer, the QKV gemv of the layer-normalized input, the attention with its KV store and merge, the
 * output projection plus residual, the MLP up with GELU and the MLP down plus residual, each stage separated from
 * the next by a grid barrier, and the layers by a fifth.
 *
 * <p>Why: a token's 62 launches of {@link GptKernels} and {@link GptAttentionKernels} wait, each, for their first
 * reads to arrive from memory, and those waits add up (a chain of kernels that only stream the step's bytes takes 232
 * µs on an H200, against 132 µs for one kernel streaming the same bytes). Every stage's large reads, its weights and
 * the cached keys and values, do not depend on the stage before it; so each block issues its share of the next
 * stage's reads into registers before it waits at the barrier, and the wait overlaps the memory's latency.
 *
 * <p>The grid is one block of 512 threads a compute unit, each resident at once (at most 128 registers a thread, so
 * one block fills a unit's registers and no unit takes two): the barrier needs every block running. A block that
 * waits too long at a barrier traps, so a grid that is not all resident (a device shared with other work) loses the
 * runtime instead of hanging it; a launch of another grid or block size traps before its first barrier. The shapes
 * are constants of the text ({@link #layer}); the launch's info words are checked against them.
 *
 * <p>Buffers: {@code x, xb, xc, ln1g, ln1b, wQkv, bQkv, keys, values, pos, qkv, parts, count, att, wProj, bProj, x2,
 * ln2g, ln2b, wUp, bUp, hidden, wDown, bDown, barrier} (and the trace, {@link Variant#traced}); info: {@code d,
 * heads, mlp, ctx, chunk, grid, layers}. The weights, norms, biases and caches hold every layer, one after another;
 * layer l writes its output to {@code xb} (l even) or {@code xc} (l odd). {@code count} (a word a head) and {@code
 * barrier} (one word) start at zero and are left so. cuda and hip only: the CUDA C text assumes 32-lane warps, and
 * there is no WGSL or Java text (the cpu decoder launches the kernels one by one).
 */
public final class GptLayerKernels {
    private GptLayerKernels() {}

    /** Threads a block of the layer kernel. */
    public static final int THREADS = 512;

    /** 64-bit words a block of a traced layers kernel writes ({@link Variant#traced}). */
    public static final int TRACE_WORDS = 16;

    /**
     * A traced launch's intervals in the order of a layer: the barrier before a layer (mark 11 of the layer before to
     * mark 0), then mark i to mark i + 1 for i from 0 to 9, all of the last layer.
     */
    public static final List<String> INTERVALS = List.of(
            "next layer's QKV reads issued, barrier 5 (the layer before)",
            "QKV input loaded, attention keys issued, layer norm",
            "QKV rows",
            "attention values issued, barrier 1",
            "attention (projection reads issued first)",
            "barrier 2",
            "projection rows",
            "MLP up reads issued, barrier 3",
            "MLP up input and rows",
            "MLP down reads issued, barrier 4",
            "MLP down input and rows");

    /**
     * A traced launch's trace ({@link #TRACE_WORDS} words a block, as read back: clocks at marks 0 to 11, 14 and 15,
     * the global timer at 12 and 13) summarized: the launch's span, and for each of {@link #INTERVALS} the median and
     * the largest over the blocks, in µs at the clock rate each block's global timer gives over the launch.
     */
    public static String summary(long[] trace, int grid) {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        double[][] micros = new double[INTERVALS.size()][grid];
        for (int b = 0; b < grid; b++) {
            int at = b * TRACE_WORDS;
            long cycles = trace[at + 15] - trace[at + 14];
            double usPerCycle = cycles > 0 ? (trace[at + 13] - trace[at + 12]) / 1e3 / cycles : 0;
            micros[0][b] = (trace[at] - trace[at + 11]) * usPerCycle;
            for (int i = 0; i < 10; i++) {
                micros[i + 1][b] = (trace[at + i + 1] - trace[at + i]) * usPerCycle;
            }
            start = Math.min(start, trace[at + 12]);
            end = Math.max(end, trace[at + 13]);
        }
        StringBuilder out = new StringBuilder(String.format(
                "layers kernel trace (%d blocks): first block start to last block end %.2f µs; the last layer:%n",
                grid, (end - start) / 1e3));
        out.append("| interval | median µs | largest µs |\n|---|---|---|\n");
        for (int i = 0; i < INTERVALS.size(); i++) {
            double[] sorted = micros[i].clone();
            Arrays.sort(sorted);
            out.append(String.format("| %s | %.2f | %.2f |%n", INTERVALS.get(i), sorted[grid / 2], sorted[grid - 1]));
        }
        return out.toString();
    }

    /**
     * The layer kernel's stages, after {@link GptKernels#CUDA_GEMV_PARTS} and a {@code dot} for the weights' format:
     * the grid barrier, the gemv stage ({@code Gemv}: block b takes rows b, b + G, ..., with its loads in registers)
     * and the attention stage (units of 128 threads, a head's chunk of 32 positions each; the head's last unit merges).
     */
    static final String CUDA_LAYER_PARTS = """
            #define LAYER_THREADS 512
            #ifdef LAYER_TRACE // where a launch's time goes (-Dgpt.layerTrace): each block's clock at its marks
            #define LAYER_TRACE_PARAM , unsigned long long* __restrict__ trace
            #define LAYER_TRACE_ARG , trace
            #define LAYER_MARK(i) if (threadIdx.x == 0) trace[blockIdx.x * 16 + (i)] = clock64()
            #define LAYER_TIME(i) if (threadIdx.x == 0) { unsigned long long ns; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns)); trace[blockIdx.x * 16 + (i)] = ns; }
            #else
            #define LAYER_TRACE_PARAM
            #define LAYER_TRACE_ARG
            #define LAYER_MARK(i)
            #define LAYER_TIME(i)
            #endif
            namespace lyr {
            constexpr int T = LAYER_THREADS, G = LAYER_GRID, D = LAYER_D, H = LAYER_HEADS, HD = D / H, M = LAYER_MLP;
            constexpr int CTX = LAYER_CTX, CH = LAYER_CHUNK, NCH = (CTX + CH - 1) / CH;
            constexpr int NL = 12;            // at most this many 16-byte weight loads a thread holds for the next stage
            constexpr int UNIT = 128;         // threads of one attention unit (a head's chunk of CH positions)
            constexpr int UPB = T / UNIT;     // attention units a block runs at once
            constexpr unsigned FULL = 0xffffffffu;
            static_assert(HD == 64 && CH == 32 && NCH <= 32, "the attention stage is written for 64-wide heads, 32-position chunks, at most 32 chunks");

            __device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
            // what another block wrote during this launch: read from the L2, never from this SM's L1
            __device__ __forceinline__ float fresh(const float* p) { return GPT_FRESH(p); }
            __device__ __forceinline__ float4 fresh4(const float4* p) { return GPT_FRESH(p); }

            // A counter's add that releases this block's writes before it (the block's barrier carries them to thread 0) and
            // acquires the writes of the adds before it, at the GPU's scope.
            __device__ __forceinline__ unsigned int add_acq_rel(unsigned int* p, unsigned int v) {
            #if defined(__CUDA_ARCH__) && !defined(LAYER_FENCED_BARRIER)
                unsigned int old;
                asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
                return old;
            #else
                __threadfence();
                unsigned int old = atomicAdd(p, v);
                __threadfence();
                return old;
            #endif
            }
            // every block of the grid arrives, then waits for all: a counter whose top bit flips once each barrier (block 0 adds
            // 2^31 - (G - 1), the others 1), so it needs no reset between barriers or launches. The wait is bounded: a grid that
            // is not all resident traps instead of hanging.
            // On NVIDIA the add releases and the polls acquire, at the GPU's scope: no separate fences (LAYER_FENCED_BARRIER
            // keeps them, to compare); the block's barrier before and after carries the order to its other threads.
            __device__ void grid_sync(unsigned int* bar) {
                __syncthreads();
                if (threadIdx.x == 0) {
                    unsigned int add = blockIdx.x == 0 ? 0x80000000u - (G - 1) : 1u;
                    long long spins = 0;
            #if defined(__CUDA_ARCH__) && !defined(LAYER_FENCED_BARRIER)
                    unsigned int old, now;
                    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(bar), "r"(add) : "memory");
                    do {
                        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(bar) : "memory");
                        if (++spins > (1ll << 24)) __trap(); // seconds: no barrier of a step waits that long
                    } while (((old ^ now) & 0x80000000u) == 0);
            #else
                    __threadfence();
                    unsigned int old = atomicAdd(bar, add);
                    while (((old ^ *(volatile unsigned int*) bar) & 0x80000000u) == 0) {
                        if (++spins > (1ll << 24)) __trap(); // seconds: no barrier of a step waits that long
                    }
                    __threadfence();
            #endif
                }
                __syncthreads();
            }

            __host__ __device__ constexpr int pow2_at_least(int n) { int p = 1; while (p < n) p *= 2; return p; }
            __host__ __device__ constexpr int pow2_at_most(int n) { int p = 1; while (p * 2 <= n) p *= 2; return p; }

            // one gemv stage of ROWS x COLS weights, PER values to a 16-byte load V: block b takes rows b, b + G, b + 2G, ...,
            // TPR threads a row, SLOTS rows at once
            template <int ROWS, int COLS, int PER>
            struct Gemv {
                static constexpr int C = COLS / PER;                     // loads a row
                static constexpr int RB = (ROWS + G - 1) / G;            // rows of the busiest block
                // the most threads a row that still run the block's rows at once, but enough to hold a row in NL loads
                static constexpr int FEWEST = pow2_at_least((C + NL - 1) / NL);
                static constexpr int SPREAD = pow2_at_most(T / RB) < pow2_at_least(C) ? pow2_at_most(T / RB) : pow2_at_least(C);
                static constexpr int TPR = SPREAD > FEWEST ? SPREAD : FEWEST;
                static constexpr int LOADS = (C + TPR - 1) / TPR;
                static constexpr int SLOTS = T / TPR;
                static_assert(COLS % PER == 0 && TPR <= T && LOADS <= NL, "a row fits a thread group's loads");
                static_assert(RB <= SLOTS, "every block's rows at once: the grid has at least ROWS * TPR / T blocks");

                __device__ static int row() { return blockIdx.x + threadIdx.x / TPR * G; }
                // this thread's loads of its row (zero past the matrix)
                template <typename V>
                __device__ static void load(V (&a)[NL], const V* w) {
                    int r = row(), t = threadIdx.x % TPR;
                    bool live = r < ROWS && threadIdx.x / TPR < SLOTS;
                    #pragma unroll
                    for (int u = 0; u < LOADS; u++) {
                        int k = t + u * TPR;
                        a[u] = live && k < C ? w[(size_t) r * C + k] : V{};
                    }
                }
                // the row's sum over its TPR threads, to each of them (every thread of the block calls it)
                __device__ static float row_sum(float v, float* red) {
                    #pragma unroll
                    for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
                    if (TPR > 32) {
                        __syncthreads();
                        if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
                        __syncthreads();
                        int first = threadIdx.x / TPR * (TPR / 32);
                        v = 0.0f;
                        #pragma unroll
                        for (int i = 0; i < (TPR > 32 ? TPR / 32 : 1); i++) v += red[first + i];
                    }
                    return v;
                }
                // the block's rows from the loads in a and the input in xs: out(row, sum) by each row's first thread
                template <typename V, typename Out>
                __device__ static void rows(const V (&a)[NL], const float* xs, float* red, Out out) {
                    const float4* x4 = reinterpret_cast<const float4*>(xs);
                    int r = row(), t = threadIdx.x % TPR;
                    float acc = 0.0f;
                    #pragma unroll
                    for (int u = 0; u < LOADS; u++) {
                        int k = t + u * TPR;
                        if (k < C) acc += dot(a[u], x4, k);
                    }
                    acc = row_sum(acc, red);
                    if (t == 0 && r < ROWS && threadIdx.x / TPR < SLOTS) out(r, acc);
                }
            };

            // one attention unit's reads: the cached keys and values of its chunk up to (not including) the position, as float4
            // segments: thread tu of the unit holds segment tu % 16 of positions tu / 16 + 8k, k < 4
            struct AttentionLoads {
                float4 k[4], v[4];
            };
            __device__ __forceinline__ int unit_of() { return blockIdx.x + threadIdx.x / UNIT * G; }
            constexpr int UNITS = H * NCH;
            static_assert(UNITS <= G * UPB, "every attention unit at once: the grid has at least H * NCH / UPB blocks");

            // a unit's query, new key and new value segments (written by the QKV stage of this launch)
            struct AttentionInputs {
                float4 q, kn, vn;
            };
            __device__ AttentionInputs attention_inputs(const float* qkv) {
                int h = unit_of() % H, sg = threadIdx.x % UNIT % 16;
                const float4* qkv4 = reinterpret_cast<const float4*>(qkv);
                return {fresh4(qkv4 + h * (HD / 4) + sg), fresh4(qkv4 + (D + h * HD) / 4 + sg),
                        fresh4(qkv4 + (2 * D + h * HD) / 4 + sg)};
            }

            __device__ void attention_load(float4 (&l)[4], const float4* cache, int p) { // a layer's keys or values
                int u = unit_of(), h = u % H, start = u / H * CH, tu = threadIdx.x % UNIT, sg = tu % 16, r0 = tu / 16;
                #pragma unroll
                for (int k = 0; k < 4; k++) {
                    int i = start + r0 + 8 * k;
                    bool cached = u < UNITS && i < p;
                    l[k] = cached ? cache[((size_t) h * CTX + i) * (HD / 4) + sg] : float4{};
                }
            }

            // one attention unit: its chunk's scores, softmax and weighted values into its record (max, sum, HD values), the new
            // key and value into the caches where the chunk holds the position; the head's last unit to finish merges the head's
            // records into att. sh: HD + 4 shared words a warp of the block, for its partials.
            __device__ void attention_unit(const AttentionLoads& l, const AttentionInputs& in, float4* kc, float4* vc, int p,
                                           float* part, int* count, float* att, float* sh, bool* last) {
                int u = unit_of(), h = u % H, c = u / H, start = c * CH;
                int tu = threadIdx.x % UNIT, sg = tu % 16, r0 = tu / 16, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
                bool live = u < UNITS && start <= p;
                float4 q = in.q, kn = in.kn, vn = in.vn;
                float scale = 1.0f / sqrtf((float) HD);
                float s[4];
                float m = -3.402823466e+38f;
                #pragma unroll
                for (int k = 0; k < 4; k++) {
                    int i = start + r0 + 8 * k;
                    float4 key = i == p ? kn : l.k[k];
                    if (live && i == p) { // the new position: its key and value into the caches, for the steps after this one
                        size_t at = ((size_t) h * CTX + p) * (HD / 4) + sg;
                        kc[at] = kn;
                        vc[at] = vn;
                    }
                    float d = dot4(q, key);
                    d += __shfl_xor_sync(FULL, d, 8);
                    d += __shfl_xor_sync(FULL, d, 4);
                    d += __shfl_xor_sync(FULL, d, 2);
                    d += __shfl_xor_sync(FULL, d, 1);
                    s[k] = live && i <= p ? d * scale : -3.402823466e+38f;
                    m = fmaxf(m, s[k]);
                }
                m = fmaxf(m, __shfl_xor_sync(FULL, m, 16)); // the warp's eight positions
                float e = 0.0f;
                float4 acc = float4{};
                #pragma unroll
                for (int k = 0; k < 4; k++) {
                    int i = start + r0 + 8 * k;
                    float w = live && i <= p ? expf(s[k] - m) : 0.0f;
                    float4 val = i == p ? vn : l.v[k];
                    e += w;
                    acc.x += w * val.x; acc.y += w * val.y; acc.z += w * val.z; acc.w += w * val.w;
                }
                e += __shfl_xor_sync(FULL, e, 16);
                acc.x += __shfl_xor_sync(FULL, acc.x, 16);
                acc.y += __shfl_xor_sync(FULL, acc.y, 16);
                acc.z += __shfl_xor_sync(FULL, acc.z, 16);
                acc.w += __shfl_xor_sync(FULL, acc.w, 16);
                float* mine = sh + warp * (HD + 4); // this warp's max and sum, then its weighted values 16-byte aligned
                if (lane < 16) reinterpret_cast<float4*>(mine + 4)[lane] = acc;
                if (lane == 0) { mine[0] = m; mine[1] = e; }
                __syncthreads();
                float* rec = part + (size_t) u * (HD + 2);
                int first = threadIdx.x / UNIT * (UNIT / 32); // the unit's first warp
                if (live && tu < HD) {
                    float mm = -3.402823466e+38f;
                    #pragma unroll
                    for (int w = 0; w < UNIT / 32; w++) mm = fmaxf(mm, sh[(first + w) * (HD + 4)]);
                    float ll = 0.0f, vv = 0.0f;
                    #pragma unroll
                    for (int w = 0; w < UNIT / 32; w++) {
                        const float* o = sh + (first + w) * (HD + 4);
                        float f = expf(o[0] - mm);
                        ll += o[1] * f;
                        vv += o[4 + tu] * f;
                    }
                    rec[2 + tu] = vv;
                    if (tu == 0) { rec[0] = mm; rec[1] = ll; }
                }
                __syncthreads(); // the record written, the unit counts itself done: its add releases the record
                int chunks = p / CH + 1;
                if (tu == 0) {
                    last[threadIdx.x / UNIT] =
                            live && add_acq_rel(reinterpret_cast<unsigned int*>(count + h), 1u) == chunks - 1u;
                }
                __syncthreads();
                if (!last[threadIdx.x / UNIT]) return; // the last unit's add acquired every record of the head
                if (tu == 0) count[h] = 0; // every chunk of the head has counted: ready for the next layer
                // the merge: every warp finds the records' maximum and sum (lane c: record c), then thread j < HD its value
                const float* recs = part + h * (HD + 2);
                constexpr int STRIDE = H * (HD + 2);
                float mc = lane < chunks ? fresh(recs + lane * STRIDE) : -3.402823466e+38f;
                float lc = lane < chunks ? fresh(recs + lane * STRIDE + 1) : 0.0f;
                float mx = warp_max(mc), wc = lane < chunks ? expf(mc - mx) : 0.0f, total = warp_sum(lc * wc);
                if (tu < HD) {
                    float vv[NCH];
                    #pragma unroll
                    for (int i = 0; i < NCH; i++) vv[i] = i < chunks ? fresh(recs + i * STRIDE + 2 + tu) : 0.0f;
                    float out = 0.0f;
                    #pragma unroll
                    for (int i = 0; i < NCH; i++) out += vv[i] * __shfl_sync(FULL, wc, i);
                    att[h * HD + tu] = out / total;
                }
            }
            } // namespace lyr
            using namespace lyr;

            // a vector of D values a block holds NI to a thread: an input, or a layer norm's gain or shift
            constexpr int NI = (D + T - 1) / T;
            __device__ __forceinline__ void load_vector(float (&v)[NI], const float* p, bool fresh_) {
                #pragma unroll
                for (int u = 0; u < NI; u++) {
                    int i = threadIdx.x + u * T;
                    v[u] = i < D ? (fresh_ ? fresh(p + i) : p[i]) : 0.0f;
                }
            }
            // x layer-normalized with g and b into xs, then the block's barrier
            __device__ void normalize_into(const float (&xv)[NI], const float (&gv)[NI], const float (&bv)[NI], float* xs,
                                           float* red) {
                normalized_into(xv, gv, bv, D, xs, red);
                __syncthreads();
            }
            // COLS values another block wrote during this launch into xs
            template <int COLS>
            __device__ void copy_into(const float* x, float* xs) {
                #pragma unroll 4
                for (int i = threadIdx.x; i < COLS; i += T) xs[i] = fresh(x + i);
                __syncthreads();
            }

            // The whole step's layers, one after another in the same grid: layer l reads its input from x (l = 0) or
            // from the layer before's output, and writes its output to xb (even l) or xc (odd l). Each layer's weights
            // and caches are at its index in the stacked buffers.
            template <typename W, typename V, int PER>
            __device__ __forceinline__ void layers_body(
                    const float* __restrict__ x, float* xb, float* xc, const float* __restrict__ ln1g,
                    const float* __restrict__ ln1b, const W* __restrict__ wqkv, const float* __restrict__ bqkv,
                    float* __restrict__ kc, float* __restrict__ vc, const int* __restrict__ pos, float* qkv, float* part,
                    int* count, float* att, const W* __restrict__ wproj, const float* __restrict__ bproj, float* x2,
                    const float* __restrict__ ln2g, const float* __restrict__ ln2b, const W* __restrict__ wup,
                    const float* __restrict__ bup, float* hid, const W* __restrict__ wdown, const float* __restrict__ bdown,
                    unsigned int* bar LAYER_TRACE_PARAM, const int* __restrict__ info) {
                __shared__ __align__(16) float xs[M > D ? M : D];
                __shared__ __align__(16) float sh[UPB * (UNIT / 32) * (HD + 4)];
                __shared__ float red[T / 32];
                __shared__ bool last[UPB];
                if (gridDim.x != G || blockDim.x != T) __trap(); // every block, before any barrier: a wrong grid cannot hang
                LAYER_TIME(12);
                LAYER_MARK(14);
                using Qkv = Gemv<3 * D, D, PER>;
                using Proj = Gemv<D, D, PER>;
                using Up = Gemv<M, D, PER>;
                using Down = Gemv<D, M, PER>;
                constexpr size_t CACHE = (size_t) H * CTX * (HD / 4); // float4 of a layer's keys (or values)
                const V* wq = reinterpret_cast<const V*>(wqkv);
                const V* wp = reinterpret_cast<const V*>(wproj);
                const V* wu = reinterpret_cast<const V*>(wup);
                const V* wd = reinterpret_cast<const V*>(wdown);
                V a[NL]; // a stage's weights
                float xv[NI], gv[NI], bv[NI];
                float bias, res;
                AttentionLoads kv;
                // layer 0's reads: its weights do not wait for the kernel before; its input does
                load_vector(gv, ln1g, false);
                load_vector(bv, ln1b, false);
            #ifdef GPT_PLAIN // nothing runs before it: the input first, so its short trip is not queued behind the weights'
                load_vector(xv, x, true);
            #endif
                Qkv::load(a, wq);
                bias = bqkv[min(Qkv::row(), 3 * D - 1)];
                GPT_WAIT();
            #ifndef GPT_PLAIN
                load_vector(xv, x, true);
            #endif
                int p = pos[0];
                for (int l = 0; l < LAYER_LAYERS; l++) {
                    const float* in = l == 0 ? x : l % 2 == 1 ? xb : xc;
                    float* out = l % 2 == 0 ? xb : xc;
                    LAYER_MARK(0);
                    // 1. qkv = W_qkv LN1(x) + b; the input's loads first, then the attention's keys, which stream in while
                    // this stage computes (its values after the rows: both beside the weights would spill registers)
                    if (l > 0) load_vector(xv, in, true);
                    float4* kcl = reinterpret_cast<float4*>(kc) + l * CACHE;
                    float4* vcl = reinterpret_cast<float4*>(vc) + l * CACHE;
                    attention_load(kv.k, kcl, p);
                    normalize_into(xv, gv, bv, xs, red);
                    LAYER_MARK(1);
                    Qkv::rows(a, xs, red, [&](int r, float acc) { qkv[r] = acc + bias; });
                    LAYER_MARK(2);
                    attention_load(kv.v, vcl, p);
                    grid_sync(bar);
                    LAYER_MARK(3);
                    // 2. attention over the cached positions and the new one; the head's last unit merges into att. The
                    // projection's weights stream in meanwhile.
                    AttentionInputs ai = attention_inputs(qkv);
                    Proj::load(a, wp + (size_t) l * D * Proj::C);
                    float biasP = bproj[l * D + min(Proj::row(), D - 1)];
                    res = fresh(in + min(Proj::row(), D - 1));
                    attention_unit(kv, ai, kcl, vcl, p, part, count, att, sh, last);
                    LAYER_MARK(4);
                    grid_sync(bar);
                    LAYER_MARK(5);
                    // 3. x2 = W_proj att + b + x; then the MLP up's weights and layer norm
                    copy_into<D>(att, xs);
                    Proj::rows(a, xs, red, [&](int r, float acc) { x2[r] = acc + biasP + res; });
                    LAYER_MARK(6);
                    Up::load(a, wu + (size_t) l * M * Up::C);
                    bias = bup[l * M + min(Up::row(), M - 1)];
                    load_vector(gv, ln2g + l * D, false);
                    load_vector(bv, ln2b + l * D, false);
                    grid_sync(bar);
                    LAYER_MARK(7);
                    // 4. hid = GELU(W_up LN2(x2) + b); then the MLP down's weights
                    load_vector(xv, x2, true);
                    normalize_into(xv, gv, bv, xs, red);
                    Up::rows(a, xs, red, [&](int r, float acc) { hid[r] = gelu(acc + bias); });
                    LAYER_MARK(8);
                    Down::load(a, wd + (size_t) l * D * Down::C);
                    bias = bdown[l * D + min(Down::row(), D - 1)];
                    res = fresh(x2 + min(Down::row(), D - 1));
                    grid_sync(bar);
                    LAYER_MARK(9);
                    // 5. out = W_down hid + b + x2
                    copy_into<M>(hid, xs);
                    Down::rows(a, xs, red, [&](int r, float acc) { out[r] = acc + bias + res; });
                    LAYER_MARK(10);
                    if (l + 1 < LAYER_LAYERS) { // the next layer's reads, then the barrier its input needs
                        LAYER_MARK(11);
                        Qkv::load(a, wq + (size_t) (l + 1) * 3 * D * Qkv::C);
                        bias = bqkv[(l + 1) * 3 * D + min(Qkv::row(), 3 * D - 1)];
                        load_vector(gv, ln1g + (l + 1) * D, false);
                        load_vector(bv, ln1b + (l + 1) * D, false);
                        grid_sync(bar);
                    }
                }
                LAYER_MARK(15);
                LAYER_TIME(13);
                if (blockIdx.x == 0 && threadIdx.x == 0 && (info[0] != D || info[1] != H || info[2] != M || info[3] != CTX
                                                            || info[4] != CH || info[5] != G || info[6] != LAYER_LAYERS)) {
                    __trap(); // a launch whose info words say another shape than the text's is a bug
                }
                GPT_TRIGGER();
            }
            """;

    /** The kernel's entry point over weights of type {@code w}, read as {@code v} holding {@code per} values. */
    private static String entry(String name, String w, String v, int per) {
        return """
                extern "C" __global__ void __launch_bounds__(512, 1) %1$s(
                        const float* __restrict__ x, float* xb, float* xc, const float* __restrict__ ln1g,
                        const float* __restrict__ ln1b, const %2$s* __restrict__ wqkv, const float* __restrict__ bqkv,
                        float* __restrict__ kc, float* __restrict__ vc, const int* __restrict__ pos, float* qkv,
                        float* part, int* count, float* att, const %2$s* __restrict__ wproj,
                        const float* __restrict__ bproj, float* x2, const float* __restrict__ ln2g,
                        const float* __restrict__ ln2b, const %2$s* __restrict__ wup, const float* __restrict__ bup,
                        float* hid, const %2$s* __restrict__ wdown, const float* __restrict__ bdown,
                        unsigned int* bar LAYER_TRACE_PARAM, const int* __restrict__ info) {
                    layers_body<%2$s, %3$s, %4$d>(x, xb, xc, ln1g, ln1b, wqkv, bqkv, kc, vc, pos, qkv, part, count, att,
                                                  wproj, bproj, x2, ln2g, ln2b, wup, bup, hid, wdown, bdown, bar
                                                  LAYER_TRACE_ARG, info);
                }
                """.formatted(name, w, v, per);
    }

    static final String CUDA_LAYER =
            GptKernels.CUDA_DOT + GptKernels.CUDA_GEMV_PARTS + CUDA_LAYER_PARTS + entry("layers", "float", "float4", 4);

    static final String CUDA_LAYER_BF16 = GptBf16Kernels.CUDA_DOT_BF16
            + GptKernels.CUDA_GEMV_PARTS
            + CUDA_LAYER_PARTS
            + entry("layers_bf16", "unsigned int", "uint4", 8);

    /**
     * Whether the layer kernel is written for {@code c} with attention chunks of {@code chunk} positions: heads 64
     * wide, chunks of 32 positions, at most 32 chunks (a context of at most 1,024), vectors in whole 16-byte loads
     * (of bf16 too), and an MLP vector that fits the block's shared memory.
     */
    public static boolean supports(GptConfig c, int chunk) {
        return c.headDim() == 64
                && chunk == 32
                && c.ctx() <= 32 * chunk
                && c.d() % 8 == 0
                && c.mlp() % 8 == 0
                && c.mlp() <= GptKernels.MAX_COLS
                && c.d() <= GptKernels.MAX_COLS;
    }

    /**
     * The layer kernel for {@code c}, chunks of {@code chunk} positions and a grid of {@code grid} blocks (the
     * device's compute units), over bf16 matrices when {@code bf16}; refuses a shape it is not written for.
     */
    public static KernelSource layer(boolean bf16, GptConfig c, int chunk, int grid) {
        return layer(bf16, c, chunk, grid, Variant.DEFAULT);
    }

    /**
     * How a layers kernel is built beyond its shape, each measured against the other on the H200: {@code traced} adds
     * one more buffer, {@link #TRACE_WORDS} 64-bit words a block, where thread 0 of each block writes its clock at its
     * marks and the global timer at the launch's start and end ({@link #summary}); {@code fencedBarrier} puts full
     * fences around the grid barrier's add and polls instead of a release add and acquire polls (on an H200, a6254ac's
     * job before 1efb52b: 359.5 µs a token fenced, 339.0 not). Measured and dropped: every block merging the
     * attention's records itself after barrier 2, instead of the last unit of each head before it (349.8 against
     * 345.5 µs: each block's 101 KB of records from the L2 took longer than the last unit's merge); and every thread
     * asking the L2 ({@code prefetch.global.L2}) for a share of later stages' bytes, two schedules in one job at
     * 80e9a0f: all of a layer's values, projection and MLP up at its start (383.3 µs against 333.3 and 329.1 without),
     * or each stage the stage after the next one's (330.9 and 332.1; the MLP up's barrier still 3.35 µs, against 3.46
     * without).
     */
    public record Variant(boolean traced, boolean fencedBarrier) {
        public static final Variant DEFAULT = new Variant(false, false);

        String defines() {
            return (traced ? "#define LAYER_TRACE\n" : "") + (fencedBarrier ? "#define LAYER_FENCED_BARRIER\n" : "");
        }
    }

    /** As above, built as {@code variant} says. */
    public static KernelSource layer(boolean bf16, GptConfig c, int chunk, int grid, Variant variant) {
        if (!supports(c, chunk)) {
            throw new IllegalArgumentException("the layer kernel needs 64-wide heads, chunks of 32 positions and a"
                    + " context of at most 1,024; this model has heads " + c.headDim() + " wide, chunk " + chunk
                    + ", context " + c.ctx());
        }
        if (grid < 1) {
            throw new IllegalArgumentException("grid must be positive, was " + grid);
        }
        String defines = "#define LAYER_D " + c.d() + "\n#define LAYER_HEADS " + c.heads() + "\n#define LAYER_MLP "
                + c.mlp() + "\n#define LAYER_CTX " + c.ctx() + "\n#define LAYER_CHUNK " + chunk
                + "\n#define LAYER_GRID " + grid + "\n#define LAYER_LAYERS " + c.layers() + "\n"
                + variant.defines();
        return GptKernels.withShape(bf16 ? LAYER_BF16 : LAYER, defines);
    }

    private static final KernelSource LAYER = KernelSource.named("layers").cuda(CUDA_LAYER);
    private static final KernelSource LAYER_BF16 =
            KernelSource.named("layers_bf16").cuda(CUDA_LAYER_BF16);
}
