package dev.graphrt.examples.gpt;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;

/**
 * The decoder's gemv kernels in every dialect (CUDA C, also compiled by hip; WGSL; Java), each in the one argument
 * layout of docs/kernels.md: buffers, then the info words, and what fixes any of the step's kernels to its shape
 * ({@link #withShape}). Written to stream the weights at the memory's bandwidth: a token is five launches a layer
 * (four gemvs and the attention, {@link GptAttentionKernels}), with the layer norms, the KV store and the attention's
 * merge fused in.
 *
 * <ul>
 *   <li>{@code gemv(w, x, g, b, bias, r, y; rows, cols, flags, tpr)}: {@code y = w x' + bias}, then GELU (flag 1) and
 *       the residual {@code r} (flag 2), where {@code x'} is {@code x} layer-normalized with gain {@code g} and shift
 *       {@code b} when flag 4 is set (each block normalizes the vector itself, so no launch of its own) and {@code x}
 *       otherwise. CUDA and Java give each row {@code tpr} threads of a 256-thread block ({@link #threadsPerRow}:
 *       each thread then has at most eight 16-byte loads of the row in flight at once), and issues its first weight
 *       loads before it prepares its input; WGSL one 64-lane workgroup, for rows a workgroup count apart.</li>
 * </ul>
 */
public final class GptKernels {
    private GptKernels() {}

    /** Columns the CUDA gemv kernels hold in shared memory: the longest input vector (the MLP's, {@code 4 d}). */
    public static final int MAX_COLS = 4096;

    /**
     * {@code kernel} with its shape fixed in its CUDA C text: {@code defines} go before it, so the compiler sees the
     * sizes as constants and the kernel's first loads need no info word (an info word is a round trip to memory that
     * every address waited for). The launch still passes its info words, which the kernel checks against the text's
     * at its end ({@code __trap()} on a mismatch); the WGSL and Java texts are unchanged.
     */
    static KernelSource withShape(KernelSource kernel, String defines) {
        return kernel.cuda(defines + "#line 1\n" + kernel.text(Dialect.CUDA_C).orElseThrow());
    }

    /**
     * A gemv kernel ({@link #GEMV} or bf16's) for {@code rows x cols} at {@code tpr} threads a row, with {@code flags}
     * (its epilogue and its input's normalization) only.
     */
    public static KernelSource gemvOfShape(KernelSource gemv, int rows, int cols, int tpr, int flags) {
        return withShape(
                gemv,
                "#define GEMV_ROWS " + rows + "\n#define GEMV_COLS " + cols + "\n#define GEMV_TPR " + tpr
                        + "\n#define GEMV_FLAGS " + flags + "\n");
    }

    /**
     * What the step's CUDA kernels share: the dependent-launch hooks' plain defaults, GELU, and warp and block sums and
     * maxima (32-lane warps).
     */
    static final String CUDA_COMMON = """
            #ifndef GPT_WAIT // a plain kernel: no predecessor runs beside it (see GptDependentLaunch)
            #define GPT_PLAIN
            #define GPT_WAIT()
            #define GPT_TRIGGER()
            #endif
            #ifdef __CUDA_ARCH__ // read past the SM's L1, so another block's writes of the same launch are seen
            #define GPT_FRESH(p) __ldcg(p)
            #else
            #define GPT_FRESH(p) (*(p))
            #endif
            __device__ __forceinline__ float gelu(float z) {
                return 0.5f * z * (1.0f + tanhf(0.7978845608028654f * (z + 0.044715f * z * z * z)));
            }
            __device__ __forceinline__ float warp_sum(float v) {
                for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
                return v;
            }
            __device__ __forceinline__ float warp_max(float v) {
                for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
                return v;
            }
            // the block's sum of every thread's v, returned to every thread (red: one word per warp)
            __device__ float block_sum(float v, float* red) {
                v = warp_sum(v);
                __syncthreads();
                if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
                __syncthreads();
                float s = 0.0f;
                for (int i = 0; i < blockDim.x / 32; i++) s += red[i];
                return s;
            }
            """;

    /**
     * What both CUDA gemv kernels share: {@link #CUDA_COMMON}, the input vector into shared memory (normalized
     * under flag 4; read from the L2, so another block's writes of the same launch are seen after a grid barrier), a
     * row's sum over its {@code tpr} threads, the row's epilogue, and the row loop itself ({@code gemv_rows}), which
     * calls the {@code dot} and {@code row_dot} a kernel's text defines before these parts for its weights' format.
     */
    static final String CUDA_GEMV_PARTS = CUDA_COMMON + """
            #define GEMV_MAX_COLS 4096
            // a vector held N to a thread (element t + u * blockDim.x in slot u), layer-normalized with g and b held
            // alike, into xs
            template <int N>
            __device__ __forceinline__ void normalized_into(const float (&xv)[N], const float (&gv)[N],
                                                            const float (&bv)[N], int cols, float* xs, float* red) {
                int t = threadIdx.x, nt = blockDim.x;
                float s = 0.0f;
                #pragma unroll
                for (int u = 0; u < N; u++) s += xv[u];
                float mean = block_sum(s, red) / cols, v = 0.0f;
                #pragma unroll
                for (int u = 0; u < N; u++) {
                    if (t + u * nt < cols) { float c = xv[u] - mean; v += c * c; }
                }
                float inv = 1.0f / sqrtf(block_sum(v, red) / cols + 1e-5f);
                #pragma unroll
                for (int u = 0; u < N; u++) {
                    int i = t + u * nt;
                    if (i < cols) xs[i] = (xv[u] - mean) * inv * gv[u] + bv[u];
                }
            }
            // x layer-normalized with g and b into xs, from registers: each thread's N elements of x, g and b are
            // loaded at once (one round trip to memory, not one for x and another for g and b after the sums)
            template <int N>
            __device__ __forceinline__ void gemv_normalized(const float* x, const float* g, const float* b, int cols,
                                                            float* xs, float* red) {
                float xv[N], gv[N], bv[N];
                int t = threadIdx.x, nt = blockDim.x;
                #pragma unroll
                for (int u = 0; u < N; u++) {
                    int i = t + u * nt;
                    bool in = i < cols;
                    xv[u] = in ? GPT_FRESH(x + i) : 0.0f;
                    gv[u] = in ? g[i] : 0.0f;
                    bv[u] = in ? b[i] : 0.0f;
                }
                normalized_into(xv, gv, bv, cols, xs, red);
            }
            // x into xs, layer-normalized with g and b when flags & 4 (in the same order of sums either way)
            __device__ void gemv_input(const float* x, const float* g, const float* b, int cols, int flags,
                                       float* xs, float* red) {
                if ((flags & 4) && cols <= 4 * blockDim.x) {
                    gemv_normalized<4>(x, g, b, cols, xs, red);
                } else {
                    for (int i = threadIdx.x; i < cols; i += blockDim.x) xs[i] = GPT_FRESH(x + i);
                    if (flags & 4) { // a long input: through shared memory, so the registers stay few
                        float s = 0.0f;
                        for (int i = threadIdx.x; i < cols; i += blockDim.x) s += xs[i];
                        float mean = block_sum(s, red) / cols, v = 0.0f;
                        // the deviations from the block's own copy: each thread reads only what it wrote
                        for (int i = threadIdx.x; i < cols; i += blockDim.x) { float c = xs[i] - mean; v += c * c; }
                        float inv = 1.0f / sqrtf(block_sum(v, red) / cols + 1e-5f);
                        for (int i = threadIdx.x; i < cols; i += blockDim.x) xs[i] = (xs[i] - mean) * inv * g[i] + b[i];
                    }
                }
                __syncthreads();
            }
            // the sum over the tpr threads of a row (tpr a multiple of 32 dividing the block), to each of them
            __device__ float row_sum(float v, int tpr, float* red) {
                v = warp_sum(v);
                if (tpr == 32) return v;
                __syncthreads();
                if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
                __syncthreads();
                int first = threadIdx.x / tpr * (tpr / 32);
                float s = 0.0f;
                for (int i = 0; i < tpr / 32; i++) s += red[first + i];
                return s;
            }
            // a row's result: its bias and residual were loaded when the row began, not after its sum
            __device__ __forceinline__ void gemv_out(float acc, int row, float bias, float residual, float* y,
                                                     int flags) {
                float v = acc + bias;
                if (flags & 1) v = gelu(v);
                if (flags & 2) v += residual;
                y[row] = v;
            }
            // eight 16-byte loads of a row, tpr apart from j, all in flight at once (zero past n)
            template <typename V>
            __device__ __forceinline__ void load8(V* a, const V* __restrict__ wv, int j, int n, int tpr) {
                #pragma unroll
                for (int u = 0; u < 8; u++) {
                    int k = j + u * tpr;
                    a[u] = k < n ? wv[k] : V{};
                }
            }
            // the body of both gemv kernels: the weights as W words, read as V (16 bytes holding PER values);
            // dot(a, x4, k) is load k's product with the input, row_dot(wr, xs, cols, t, tpr) the unaligned fallback.
            // A block takes groups of blockDim / tpr rows, blockIdx.x first, then every gridDim.x-th: a grid smaller
            // than the matrix's groups prepares (normalizes) the input once a block, not once a group.
            template <typename W, typename V, int PER>
            __device__ __forceinline__ void gemv_rows(const W* __restrict__ w, const float* __restrict__ x,
                                                      const float* __restrict__ g, const float* __restrict__ b,
                                                      const float* __restrict__ bias, const float* __restrict__ r,
                                                      float* __restrict__ y, const int* __restrict__ info) {
                __shared__ __align__(16) float xs[GEMV_MAX_COLS];
                __shared__ float red[32];
            #ifdef GEMV_COLS // the shape fixed in the text (GptKernels.withShape): no weight load waits for an info word
                constexpr int rows = GEMV_ROWS, cols = GEMV_COLS, tpr = GEMV_TPR, flags = GEMV_FLAGS;
            #else
                int rows = info[0], cols = info[1], flags = info[2], tpr = info[3];
            #endif
                int per = blockDim.x / tpr, groups = (rows + per - 1) / per, t = threadIdx.x % tpr;
                bool vec = cols % PER == 0;
                size_t stride = (size_t) cols * (sizeof(V) / sizeof(W)) / PER; // W words a row
                V a[8];
                for (int grp = blockIdx.x; grp < groups; grp += gridDim.x) { // the same trips for the whole block
                    int row = grp * per + threadIdx.x / tpr;
                    bool live = row < rows;
                    int n = vec && live ? cols / PER : 0;
                    const W* wr = w + (live ? row : 0) * stride;
                    const V* wv = reinterpret_cast<const V*>(wr);
                    load8(a, wv, t, n, tpr);
                    bool out = live && t == 0;
                    float bv = out ? bias[row] : 0.0f; // constant in a step, like the weights
                    if (grp == blockIdx.x) {
                        // the first weights are in flight while the kernel before it finishes (a dependent launch:
                        // the weights and info words are constant in a step) and while the block prepares its input
                        GPT_WAIT();
                    }
                    float rv = out && (flags & 2) ? r[row] : 0.0f; // in flight beside the input's loads
                    if (grp == blockIdx.x) gemv_input(x, g, b, cols, flags, xs, red);
                    float acc = 0.0f;
                    if (vec) {
                        const float4* x4 = reinterpret_cast<const float4*>(xs);
                        for (int j = t; j < n; j += 8 * tpr) {
                            if (j != t) load8(a, wv, j, n, tpr);
                            #pragma unroll
                            for (int u = 0; u < 8; u++) {
                                if (j + u * tpr < n) acc += dot(a[u], x4, j + u * tpr);
                            }
                        }
                    } else if (live) {
                        acc = row_dot(wr, xs, cols, t, tpr);
                    }
                    acc = row_sum(acc, tpr, red);
                    if (out) gemv_out(acc, row, bv, rv, y, flags);
                }
            #ifdef GEMV_COLS // a launch whose info words say another shape than the text's is a bug: trap
                if (blockIdx.x == 0 && threadIdx.x == 0 && (info[0] != rows || info[1] != cols || info[2] != flags
                                                      || info[3] != tpr)) {
                    __trap();
                }
            #endif
                GPT_TRIGGER(); // this block's weights are read: the next kernel may start issuing its own
            }
            """;

    /** Load {@code k} of an fp32 row (four values) times the input in shared memory: the fp32 kernels' {@code dot}. */
    static final String CUDA_DOT = """
            __device__ __forceinline__ float dot(float4 a, const float4* x4, int k) {
                float4 b = x4[k];
                return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
            }
            """;

    static final String CUDA_GEMV = CUDA_DOT + """
            __device__ float row_dot(const float* wr, const float* xs, int cols, int t, int tpr) {
                float acc = 0.0f;
                for (int j = t; j < cols; j += tpr) acc += wr[j] * xs[j];
                return acc;
            }
            """ + CUDA_GEMV_PARTS + """
            extern "C" __global__ void __launch_bounds__(256, 4) gemv(const float* __restrict__ w, const float* __restrict__ x,
                                            const float* __restrict__ g, const float* __restrict__ b,
                                            const float* __restrict__ bias, const float* __restrict__ r,
                                            float* __restrict__ y, const int* __restrict__ info) {
                gemv_rows<float, float4, 4>(w, x, g, b, bias, r, y, info);
            }
            """;

    /**
     * What both WGSL gemv kernels share, after their bindings ({@code x, g, b, bias, r, y, info} at 1 to 7): a
     * workgroup's sum, the input element {@code j} (normalized under flag 4: {@link #wgslPrepare} first) and the epilogue.
     */
    static final String WGSL_GEMV_PARTS = """
            var<workgroup> part: array<f32, 64>;
            var<workgroup> shape: array<i32, 3>;
            var<private> mean: f32;
            var<private> inv: f32;
            var<private> normalized: bool;
            fn gelu(z: f32) -> f32 {
                return 0.5 * z * (1.0 + tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
            }
            fn sum64(v: f32, t: u32) -> f32 {
                workgroupBarrier();
                part[t] = v;
                workgroupBarrier();
                for (var k = 32u; k > 0u; k = k / 2u) { if (t < k) { part[t] += part[t + k]; } workgroupBarrier(); }
                return part[0];
            }
            fn input(j: u32) -> f32 {
                if (normalized) { return (x[j] - mean) * inv * g[j] + b[j]; }
                return x[j];
            }
            // the shape, read once into workgroup memory so that every barrier is in uniform control flow, and the
            // input's mean and inverse deviation under flag 4
            fn prepare(t: u32) -> array<i32, 3> {
                if (t == 0u) { shape = array<i32, 3>(info[0], info[1], info[2]); }
                let u = workgroupUniformLoad(&shape);
                let cols = u32(u[1]);
                let norm = (u[2] & 4) != 0;
                normalized = norm;
                mean = 0.0;
                inv = 1.0;
                if (norm) {
                    var s = 0.0;
                    for (var j = t; j < cols; j += 64u) { s += x[j]; }
                    mean = sum64(s, t) / f32(cols);
                    var v = 0.0;
                    for (var j = t; j < cols; j += 64u) { let c = x[j] - mean; v += c * c; }
                    inv = 1.0 / sqrt(sum64(v, t) / f32(cols) + 1e-5);
                }
                return u;
            }
            fn finish(acc: f32, row: u32, flags: i32) {
                var v = acc + bias[row];
                if ((flags & 1) != 0) { v = gelu(v); }
                if ((flags & 2) != 0) { v += r[row]; }
                y[row] = v;
            }
            """;

    /** The bindings 1 to 7 both WGSL gemv kernels share. */
    static final String WGSL_GEMV_BINDINGS = """
            @group(0) @binding(1) var<storage, read_write> x: array<f32>;
            @group(0) @binding(2) var<storage, read_write> g: array<f32>;
            @group(0) @binding(3) var<storage, read_write> b: array<f32>;
            @group(0) @binding(4) var<storage, read_write> bias: array<f32>;
            @group(0) @binding(5) var<storage, read_write> r: array<f32>;
            @group(0) @binding(6) var<storage, read_write> y: array<f32>;
            @group(0) @binding(7) var<storage, read_write> info: array<i32>;
            """;

    static final String WGSL_GEMV = "@group(0) @binding(0) var<storage, read_write> w: array<f32>;\n"
            + WGSL_GEMV_BINDINGS + WGSL_GEMV_PARTS + """
            @compute @workgroup_size(64)
            fn gemv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                    @builtin(local_invocation_id) lid: vec3<u32>) {
                let t = lid.x;
                let u = prepare(t);
                let rows = u32(u[0]);
                let cols = u32(u[1]);
                for (var row = wg.x; row < rows; row += groups.x) { // the input prepared once for several rows
                    var acc = 0.0;
                    for (var j = t; j < cols; j += 64u) { acc += w[row * cols + j] * input(j); }
                    let total = sum64(acc, t);
                    if (t == 0u) { finish(total, row, u[2]); }
                }
            }
            """;

    static float f(MemorySegment m, long i) {
        return m.getAtIndex(JAVA_FLOAT, i);
    }

    public static final KernelSource GEMV = KernelSource.named("gemv")
            .cuda(CUDA_GEMV)
            .wgsl(WGSL_GEMV)
            .java(
                    (args, from, to) -> gemvRows(args, from, to, (w, x, row, cols) -> {
                        float acc = 0;
                        long base = (long) row * cols;
                        for (int j = 0; j < cols; j++) {
                            acc += f(w, base + j) * x[j];
                        }
                        return acc;
                    }),
                    JavaParameters.buffersAndInfo(7));

    /**
     * Threads per row for a gemv of {@code cols} columns read {@code perLoad} at a time (4 for fp32, 8 for bf16): the
     * fewest, from {@code atLeast} (32, 64, 128 or 256) up to 256, that leave each thread at most eight loads of its
     * row, so a row's loads are all in flight at once and a long row is spread over more threads (and blocks).
     */
    public static int threadsPerRow(int cols, int perLoad, int atLeast) {
        return threadsPerRow(cols, perLoad, atLeast, 1, 1);
    }

    /**
     * As {@link #threadsPerRow(int, int, int)}, then doubled (up to 256) while a gemv of {@code rows} rows would
     * launch fewer 256-thread blocks than the device's {@code units}: a matrix of few short rows (GPT-2's output
     * projection, 768 x 768: 96 blocks of 8 rows on an H200's 132 units) otherwise leaves units idle.
     */
    public static int threadsPerRow(int cols, int perLoad, int atLeast, int rows, int units) {
        if (atLeast < 32 || atLeast > 256 || Integer.bitCount(atLeast) != 1) {
            throw new IllegalArgumentException("atLeast must be 32, 64, 128 or 256, was " + atLeast);
        }
        if (rows < 1 || units < 1) {
            throw new IllegalArgumentException("rows and units must be positive, were " + rows + " and " + units);
        }
        int loads = (cols + perLoad - 1) / perLoad;
        int tpr = atLeast;
        while (tpr < 256 && loads > 8 * tpr) {
            tpr *= 2;
        }
        while (tpr < 256 && (rows + 256 / tpr - 1) / (256 / tpr) < units) {
            tpr *= 2;
        }
        return tpr;
    }

    /** One row's dot product of a gemv with the prepared input: the weights as they are stored (fp32, or bf16). */
    interface RowDot {
        float dot(MemorySegment w, float[] x, int row, int cols);
    }

    /**
     * The input of a gemv as the row loop reads it: buffer 1, layer-normalized with gain buffer 2 and shift buffer 3
     * when {@code normalize}, as the layer norm of {@link GptReference} computes it.
     */
    static float[] gemvInput(JavaKernelArgs args, int cols, boolean normalize) {
        float[] in = floats(args.buffer(1), cols);
        return normalize ? GptReference.layerNorm(in, floats(args.buffer(2), cols), floats(args.buffer(3), cols)) : in;
    }

    private static float[] floats(MemorySegment segment, int count) {
        return segment.asSlice(0, count * 4L).toArray(JAVA_FLOAT);
    }

    /**
     * The Java body of both gemv kernels: thread 0 of each row's {@code tpr} threads in the range does its row with
     * the prepared input ({@link #gemvInput}), adds the bias, then applies GELU ({@code flags & 1}) and the residual
     * ({@code flags & 2}). Buffers: w, x, g, b, bias, r, y; info: rows, cols, flags, tpr.
     */
    static void gemvRows(JavaKernelArgs args, int from, int to, RowDot dot) {
        int rows = args.info(0);
        int cols = args.info(1);
        int flags = args.info(2);
        int tpr = args.info(3);
        float[] in = null;
        for (int id = (from + tpr - 1) / tpr * tpr; id < to; id += tpr) {
            int row = id / tpr;
            if (row >= rows) {
                break;
            }
            if (in == null) {
                in = gemvInput(args, cols, (flags & 4) != 0);
            }
            float value = dot.dot(args.buffer(0), in, row, cols) + f(args.buffer(4), row);
            if ((flags & 1) != 0) {
                value = GptReference.gelu(value);
            }
            if ((flags & 2) != 0) {
                value += f(args.buffer(5), row);
            }
            args.buffer(6).setAtIndex(JAVA_FLOAT, row, value);
        }
    }
}
