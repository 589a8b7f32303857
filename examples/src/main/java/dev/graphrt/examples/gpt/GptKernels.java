package dev.graphrt.examples.gpt;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;

/**
 * The decoder's four kernels in every dialect (CUDA C, also compiled by hip; WGSL; Java), each in the one argument
 * layout of docs/kernels.md: buffers, then the info words.
 *
 * <ul>
 *   <li>{@code layernorm(x, g, b, y; d)}: one block of 256 reduces the mean and the variance.</li>
 *   <li>{@code gemv(w, x, bias, r, y; rows, cols, flags)}: {@code y = w x + bias}, then GELU (flag 1) and the
 *       residual {@code r} (flag 2). CUDA and Java give each row one 32-lane warp (8 rows per 256-thread block);
 *       WGSL one 64-lane workgroup.</li>
 *   <li>{@code store_kv(qkv, pos, k, v; d)}: the new key and value into the caches at the position in {@code pos}.</li>
 *   <li>{@code attention(qkv, k, v, pos, part; d, heads, chunk)}: one block of 256 per head and chunk of
 *       {@value #ATTENTION_CHUNK} positions up to {@code pos}, each writing its chunk's maximum score, sum of
 *       exponentials and weighted values (split attention, as flash-decoding does);
 *       {@code attention_merge(part, pos, out; d, heads, chunk)} rescales and sums the chunks per head. The context
 *       is spread over {@code heads x chunks} blocks, not {@code heads}.</li>
 * </ul>
 * The position is read from a buffer, so one captured step serves every position.
 */
public final class GptKernels {
    private GptKernels() {}

    static final String CUDA_LAYERNORM = """
            extern "C" __global__ void layernorm(const float* x, const float* g, const float* b, float* y,
                                                 const int* info) {
                __shared__ float red[256];
                int d = info[0], t = threadIdx.x;
                float s = 0.0f;
                for (int i = t; i < d; i += 256) s += x[i];
                red[t] = s;
                __syncthreads();
                for (int k = 128; k > 0; k >>= 1) { if (t < k) red[t] += red[t + k]; __syncthreads(); }
                float mean = red[0] / d;
                __syncthreads();
                float v = 0.0f;
                for (int i = t; i < d; i += 256) { float c = x[i] - mean; v += c * c; }
                red[t] = v;
                __syncthreads();
                for (int k = 128; k > 0; k >>= 1) { if (t < k) red[t] += red[t + k]; __syncthreads(); }
                float inv = 1.0f / sqrtf(red[0] / d + 1e-5f);
                for (int i = t; i < d; i += 256) y[i] = (x[i] - mean) * inv * g[i] + b[i];
            }
            """;

    static final String CUDA_GEMV = """
            __device__ float gelu(float z) {
                return 0.5f * z * (1.0f + tanhf(0.7978845608028654f * (z + 0.044715f * z * z * z)));
            }
            extern "C" __global__ void gemv(const float* w, const float* x, const float* bias, const float* r,
                                            float* y, const int* info) {
                int rows = info[0], cols = info[1], flags = info[2];
                int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
                if (row >= rows) return;
                const float* wr = w + (size_t) row * cols;
                float acc = 0.0f;
                if ((cols & 3) == 0) {
                    const float4* w4 = reinterpret_cast<const float4*>(wr);
                    const float4* x4 = reinterpret_cast<const float4*>(x);
                    for (int j = lane; j < cols / 4; j += 32) {
                        float4 a = w4[j], b = x4[j];
                        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
                    }
                } else {
                    for (int j = lane; j < cols; j += 32) acc += wr[j] * x[j];
                }
                for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
                if (lane == 0) {
                    float v = acc + bias[row];
                    if (flags & 1) v = gelu(v);
                    if (flags & 2) v += r[row];
                    y[row] = v;
                }
            }
            """;

    static final String CUDA_STORE_KV = """
            extern "C" __global__ void store_kv(const float* qkv, const int* pos, float* k, float* v,
                                                const int* info) {
                int d = info[0], i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < d) {
                    int p = pos[0];
                    k[p * d + i] = qkv[d + i];
                    v[p * d + i] = qkv[2 * d + i];
                }
            }
            """;

    static final String CUDA_ATTENTION = """
            extern "C" __global__ void attention(const float* qkv, const float* k, const float* v, const int* pos,
                                                 float* part, const int* info) {
                __shared__ float s[256];
                __shared__ float red[256];
                int d = info[0], heads = info[1], chunk = info[2], hd = d / heads;
                int h = blockIdx.x % heads, c = blockIdx.x / heads, t = threadIdx.x, p = pos[0];
                int start = c * chunk, end = min(start + chunk, p + 1), n = end - start;
                float* rec = part + (size_t) blockIdx.x * (hd + 2);
                if (n <= 0) {
                    if (t == 0) { rec[0] = -3.402823466e+38f; rec[1] = 0.0f; }
                    return;
                }
                const float* q = qkv + h * hd;
                float scale = 1.0f / sqrtf((float) hd);
                int warp = t / 32, lane = t % 32;
                for (int i = warp; i < n; i += 8) {
                    const float* kr = k + (size_t) (start + i) * d + h * hd;
                    float acc = 0.0f;
                    for (int j = lane; j < hd; j += 32) acc += q[j] * kr[j];
                    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
                    if (lane == 0) s[i] = acc * scale;
                }
                __syncthreads();
                float m = -3.402823466e+38f;
                for (int i = t; i < n; i += 256) m = fmaxf(m, s[i]);
                red[t] = m;
                __syncthreads();
                for (int k2 = 128; k2 > 0; k2 >>= 1) { if (t < k2) red[t] = fmaxf(red[t], red[t + k2]); __syncthreads(); }
                m = red[0];
                __syncthreads();
                float l = 0.0f;
                for (int i = t; i < n; i += 256) { float e = expf(s[i] - m); s[i] = e; l += e; }
                red[t] = l;
                __syncthreads();
                for (int k2 = 128; k2 > 0; k2 >>= 1) { if (t < k2) red[t] += red[t + k2]; __syncthreads(); }
                l = red[0];
                __syncthreads();
                int j = t % hd, part_ = t / hd, parts = 256 / hd;
                float acc = 0.0f;
                for (int i = part_; i < n; i += parts) acc += s[i] * v[(size_t) (start + i) * d + h * hd + j];
                red[t] = acc;
                __syncthreads();
                if (part_ == 0) {
                    for (int o = 1; o < parts; o++) acc += red[o * hd + j];
                    rec[2 + j] = acc;
                    if (j == 0) { rec[0] = m; rec[1] = l; }
                }
            }
            """;

    static final String CUDA_MERGE = """
            extern "C" __global__ void attention_merge(const float* part, const int* pos, float* out, const int* info) {
                int d = info[0], heads = info[1], chunk = info[2], hd = d / heads, h = blockIdx.x, j = threadIdx.x;
                if (j >= hd) return;
                int n = pos[0] / chunk + 1;
                float m = -3.402823466e+38f;
                for (int c = 0; c < n; c++) m = fmaxf(m, part[(size_t) (c * heads + h) * (hd + 2)]);
                float l = 0.0f, acc = 0.0f;
                for (int c = 0; c < n; c++) {
                    const float* rec = part + (size_t) (c * heads + h) * (hd + 2);
                    float w = expf(rec[0] - m);
                    l += rec[1] * w;
                    acc += rec[2 + j] * w;
                }
                out[h * hd + j] = acc / l;
            }
            """;

    static final String WGSL_LAYERNORM = """
            @group(0) @binding(0) var<storage, read_write> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> g: array<f32>;
            @group(0) @binding(2) var<storage, read_write> b: array<f32>;
            @group(0) @binding(3) var<storage, read_write> y: array<f32>;
            @group(0) @binding(4) var<storage, read_write> info: array<i32>;
            var<workgroup> red: array<f32, 256>;
            @compute @workgroup_size(256)
            fn layernorm(@builtin(local_invocation_id) lid: vec3<u32>) {
                let d = u32(info[0]);
                let t = lid.x;
                var s = 0.0;
                for (var i = t; i < d; i += 256u) { s += x[i]; }
                red[t] = s;
                workgroupBarrier();
                for (var k = 128u; k > 0u; k = k / 2u) { if (t < k) { red[t] += red[t + k]; } workgroupBarrier(); }
                let mean = red[0] / f32(d);
                workgroupBarrier();
                var v = 0.0;
                for (var i = t; i < d; i += 256u) { let c = x[i] - mean; v += c * c; }
                red[t] = v;
                workgroupBarrier();
                for (var k = 128u; k > 0u; k = k / 2u) { if (t < k) { red[t] += red[t + k]; } workgroupBarrier(); }
                let inv = 1.0 / sqrt(red[0] / f32(d) + 1e-5);
                for (var i = t; i < d; i += 256u) { y[i] = (x[i] - mean) * inv * g[i] + b[i]; }
            }
            """;

    static final String WGSL_GEMV = """
            @group(0) @binding(0) var<storage, read_write> w: array<f32>;
            @group(0) @binding(1) var<storage, read_write> x: array<f32>;
            @group(0) @binding(2) var<storage, read_write> bias: array<f32>;
            @group(0) @binding(3) var<storage, read_write> r: array<f32>;
            @group(0) @binding(4) var<storage, read_write> y: array<f32>;
            @group(0) @binding(5) var<storage, read_write> info: array<i32>;
            var<workgroup> part: array<f32, 64>;
            fn gelu(z: f32) -> f32 {
                return 0.5 * z * (1.0 + tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
            }
            @compute @workgroup_size(64)
            fn gemv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
                let rows = u32(info[0]);
                let cols = u32(info[1]);
                let flags = info[2];
                let row = wg.x;
                let t = lid.x;
                var acc = 0.0;
                if (row < rows) {
                    for (var j = t; j < cols; j += 64u) { acc += w[row * cols + j] * x[j]; }
                }
                part[t] = acc;
                workgroupBarrier();
                for (var k = 32u; k > 0u; k = k / 2u) { if (t < k) { part[t] += part[t + k]; } workgroupBarrier(); }
                if (t == 0u && row < rows) {
                    var v = part[0] + bias[row];
                    if ((flags & 1) != 0) { v = gelu(v); }
                    if ((flags & 2) != 0) { v += r[row]; }
                    y[row] = v;
                }
            }
            """;

    static final String WGSL_STORE_KV = """
            @group(0) @binding(0) var<storage, read_write> qkv: array<f32>;
            @group(0) @binding(1) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(2) var<storage, read_write> k: array<f32>;
            @group(0) @binding(3) var<storage, read_write> v: array<f32>;
            @group(0) @binding(4) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn store_kv(@builtin(global_invocation_id) id: vec3<u32>) {
                let d = u32(info[0]);
                let i = id.x;
                if (i < d) {
                    let p = u32(pos[0]);
                    k[p * d + i] = qkv[d + i];
                    v[p * d + i] = qkv[2u * d + i];
                }
            }
            """;

    static final String WGSL_ATTENTION = """
            @group(0) @binding(0) var<storage, read_write> qkv: array<f32>;
            @group(0) @binding(1) var<storage, read_write> k: array<f32>;
            @group(0) @binding(2) var<storage, read_write> v: array<f32>;
            @group(0) @binding(3) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(4) var<storage, read_write> part: array<f32>;
            @group(0) @binding(5) var<storage, read_write> info: array<i32>;
            var<workgroup> s: array<f32, 256>;
            var<workgroup> red: array<f32, 256>;
            var<workgroup> shape: array<i32, 4>;
            @compute @workgroup_size(256)
            fn attention(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
                let t = lid.x;
                // storage reads are not uniform to WGSL: pass them through workgroup memory, so every barrier
                // below is in uniform control flow
                if (t == 0u) { shape = array<i32, 4>(info[0], info[1], info[2], pos[0]); }
                let uniform = workgroupUniformLoad(&shape);
                let d = u32(uniform[0]);
                let heads = u32(uniform[1]);
                let chunk = u32(uniform[2]);
                let p = u32(uniform[3]);
                let hd = d / heads;
                let h = wg.x % heads;
                let c = wg.x / heads;
                let start = c * chunk;
                let end = min(start + chunk, p + 1u);
                let rec = wg.x * (hd + 2u);
                if (start >= end) {
                    if (t == 0u) { part[rec] = -3.4028234e38f; part[rec + 1u] = 0.0; }
                    return;
                }
                let n = end - start;
                let scale = 1.0 / sqrt(f32(hd));
                if (t < n) {
                    var acc = 0.0;
                    for (var j = 0u; j < hd; j++) { acc += qkv[h * hd + j] * k[(start + t) * d + h * hd + j]; }
                    s[t] = acc * scale;
                }
                workgroupBarrier();
                var m = -3.4028234e38f;
                for (var i = t; i < n; i += 256u) { m = max(m, s[i]); }
                red[t] = m;
                workgroupBarrier();
                for (var k2 = 128u; k2 > 0u; k2 = k2 / 2u) { if (t < k2) { red[t] = max(red[t], red[t + k2]); } workgroupBarrier(); }
                m = red[0];
                workgroupBarrier();
                var l = 0.0;
                for (var i = t; i < n; i += 256u) { let e = exp(s[i] - m); s[i] = e; l += e; }
                red[t] = l;
                workgroupBarrier();
                for (var k2 = 128u; k2 > 0u; k2 = k2 / 2u) { if (t < k2) { red[t] += red[t + k2]; } workgroupBarrier(); }
                l = red[0];
                workgroupBarrier();
                let j = t % hd;
                let q = t / hd;
                let parts = 256u / hd;
                var acc = 0.0;
                for (var i = q; i < n; i += parts) { acc += s[i] * v[(start + i) * d + h * hd + j]; }
                red[t] = acc;
                workgroupBarrier();
                if (q == 0u) {
                    for (var o = 1u; o < parts; o++) { acc += red[o * hd + j]; }
                    part[rec + 2u + j] = acc;
                    if (j == 0u) { part[rec] = m; part[rec + 1u] = l; }
                }
            }
            """;

    static final String WGSL_MERGE = """
            @group(0) @binding(0) var<storage, read_write> part: array<f32>;
            @group(0) @binding(1) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(2) var<storage, read_write> out: array<f32>;
            @group(0) @binding(3) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn attention_merge(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
                let d = u32(info[0]);
                let heads = u32(info[1]);
                let chunk = u32(info[2]);
                let hd = d / heads;
                let h = wg.x;
                let j = lid.x;
                if (j >= hd) { return; }
                let n = u32(pos[0]) / chunk + 1u;
                var m = -3.4028234e38f;
                for (var c = 0u; c < n; c++) { m = max(m, part[(c * heads + h) * (hd + 2u)]); }
                var l = 0.0;
                var acc = 0.0;
                for (var c = 0u; c < n; c++) {
                    let rec = (c * heads + h) * (hd + 2u);
                    let w = exp(part[rec] - m);
                    l += part[rec + 1u] * w;
                    acc += part[rec + 2u + j] * w;
                }
                out[h * hd + j] = acc / l;
            }
            """;

    /**
     * {@code plain} opted into programmatic dependent launch: its CUDA C text waits for its predecessors as the first
     * statement of the kernel (every kernel of the step reads what the one before it wrote), its other texts are
     * unchanged. On cuda on an H200 each launch then starts while the one before it drains; elsewhere it is the same
     * kernel.
     */
    static KernelSource programmaticDependent(KernelSource plain) {
        String entry = plain.entryPoint();
        String cuda = plain.text(Dialect.CUDA_C).orElseThrow();
        int signature = cuda.indexOf("__global__ void " + entry + "(");
        int body = cuda.indexOf('{', signature);
        if (signature < 0 || body < 0) {
            throw new IllegalArgumentException("kernel '" + entry + "' has no body to wait in");
        }
        KernelSource opted = KernelSource.named(entry)
                .cuda(cuda.substring(0, body + 1) + "\n    graphrt_wait_for_predecessors();"
                        + cuda.substring(body + 1));
        opted = plain.text(Dialect.WGSL).map(opted::wgsl).orElse(opted);
        opted = opted.java(
                plain.javaKernel().orElseThrow(), plain.javaParameters().orElseThrow());
        return opted.programmaticDependent();
    }

    static float f(MemorySegment m, long i) {
        return m.getAtIndex(JAVA_FLOAT, i);
    }

    public static final KernelSource LAYERNORM = KernelSource.named("layernorm")
            .cuda(CUDA_LAYERNORM)
            .wgsl(WGSL_LAYERNORM)
            .java(
                    (args, from, to) -> {
                        if (from != 0) {
                            return; // one row: the range holding id 0 does it
                        }
                        MemorySegment x = args.buffer(0);
                        MemorySegment g = args.buffer(1);
                        MemorySegment b = args.buffer(2);
                        MemorySegment y = args.buffer(3);
                        int d = args.info(0);
                        float mean = 0;
                        for (int i = 0; i < d; i++) {
                            mean += f(x, i);
                        }
                        mean /= d;
                        float var = 0;
                        for (int i = 0; i < d; i++) {
                            var += (f(x, i) - mean) * (f(x, i) - mean);
                        }
                        var /= d;
                        float inv = (float) (1 / Math.sqrt(var + 1e-5));
                        for (int i = 0; i < d; i++) {
                            y.setAtIndex(JAVA_FLOAT, i, (f(x, i) - mean) * inv * f(g, i) + f(b, i));
                        }
                    },
                    JavaParameters.buffersAndInfo(4));

    public static final KernelSource GEMV = KernelSource.named("gemv")
            .cuda(CUDA_GEMV)
            .wgsl(WGSL_GEMV)
            .java(
                    (args, from, to) -> gemvRows(args, from, to, (w, x, row, cols) -> {
                        float acc = 0;
                        long base = (long) row * cols;
                        for (int j = 0; j < cols; j++) {
                            acc += f(w, base + j) * f(x, j);
                        }
                        return acc;
                    }),
                    JavaParameters.buffersAndInfo(5));

    /** One row's dot product of a gemv: the weights as they are stored (fp32, or bf16 two to a word). */
    interface RowDot {
        float dot(MemorySegment w, MemorySegment x, int row, int cols);
    }

    /**
     * The Java body of both gemv kernels: lane 0 of each warp-sized slice of the range does its row, adds the bias,
     * then applies GELU ({@code flags & 1}) and the residual ({@code flags & 2}). Buffers: w, x, bias, r, y.
     */
    static void gemvRows(JavaKernelArgs args, int from, int to, RowDot dot) {
        int rows = args.info(0);
        int cols = args.info(1);
        int flags = args.info(2);
        for (int id = (from + 31) / 32 * 32; id < to; id += 32) {
            int row = id / 32;
            if (row >= rows) {
                break;
            }
            float value = dot.dot(args.buffer(0), args.buffer(1), row, cols) + f(args.buffer(2), row);
            if ((flags & 1) != 0) {
                value = GptReference.gelu(value);
            }
            if ((flags & 2) != 0) {
                value += f(args.buffer(3), row);
            }
            args.buffer(4).setAtIndex(JAVA_FLOAT, row, value);
        }
    }

    public static final KernelSource STORE_KV = KernelSource.named("store_kv")
            .cuda(CUDA_STORE_KV)
            .wgsl(WGSL_STORE_KV)
            .java(
                    (args, from, to) -> {
                        MemorySegment qkv = args.buffer(0);
                        int p = args.buffer(1).getAtIndex(JAVA_INT, 0);
                        MemorySegment k = args.buffer(2);
                        MemorySegment v = args.buffer(3);
                        int d = args.info(0);
                        for (int i = from; i < Math.min(to, d); i++) {
                            k.setAtIndex(JAVA_FLOAT, (long) p * d + i, f(qkv, d + i));
                            v.setAtIndex(JAVA_FLOAT, (long) p * d + i, f(qkv, 2L * d + i));
                        }
                    },
                    JavaParameters.buffersAndInfo(4));

    /**
     * Positions one attention block covers (at most 256: a head's scores over them fit the block's shared memory);
     * {@code -Dgpt.chunk} tries another.
     */
    public static final int ATTENTION_CHUNK = chunk();

    private static int chunk() {
        int chunk = Integer.getInteger("gpt.chunk", 32);
        if (chunk < 1 || chunk > 256) {
            throw new IllegalArgumentException("gpt.chunk must be between 1 and 256, was " + chunk);
        }
        return chunk;
    }

    public static final KernelSource ATTENTION = KernelSource.named("attention")
            .cuda(CUDA_ATTENTION)
            .wgsl(WGSL_ATTENTION)
            .java(
                    (args, from, to) -> {
                        MemorySegment qkv = args.buffer(0);
                        MemorySegment k = args.buffer(1);
                        MemorySegment v = args.buffer(2);
                        int p = args.buffer(3).getAtIndex(JAVA_INT, 0);
                        MemorySegment part = args.buffer(4);
                        int d = args.info(0);
                        int heads = args.info(1);
                        int chunk = args.info(2);
                        int hd = d / heads;
                        float scale = (float) (1 / Math.sqrt(hd));
                        float[] s = new float[chunk];
                        for (int id = (from + 255) / 256 * 256;
                                id < to;
                                id += 256) { // thread 0 of each block: its record
                            int block = id / 256;
                            int h = block % heads;
                            int start = block / heads * chunk;
                            int n = Math.min(start + chunk, p + 1) - start;
                            long rec = (long) block * (hd + 2);
                            if (n <= 0) {
                                part.setAtIndex(JAVA_FLOAT, rec, -Float.MAX_VALUE);
                                part.setAtIndex(JAVA_FLOAT, rec + 1, 0f);
                                continue;
                            }
                            float m = -Float.MAX_VALUE;
                            for (int i = 0; i < n; i++) {
                                float acc = 0;
                                for (int j = 0; j < hd; j++) {
                                    acc += f(qkv, h * hd + j) * f(k, (long) (start + i) * d + h * hd + j);
                                }
                                s[i] = acc * scale;
                                m = Math.max(m, s[i]);
                            }
                            float l = 0;
                            for (int i = 0; i < n; i++) {
                                s[i] = (float) Math.exp(s[i] - m);
                                l += s[i];
                            }
                            for (int j = 0; j < hd; j++) {
                                float acc = 0;
                                for (int i = 0; i < n; i++) {
                                    acc += s[i] * f(v, (long) (start + i) * d + h * hd + j);
                                }
                                part.setAtIndex(JAVA_FLOAT, rec + 2 + j, acc);
                            }
                            part.setAtIndex(JAVA_FLOAT, rec, m);
                            part.setAtIndex(JAVA_FLOAT, rec + 1, l);
                        }
                    },
                    JavaParameters.buffersAndInfo(5));

    public static final KernelSource MERGE = KernelSource.named("attention_merge")
            .cuda(CUDA_MERGE)
            .wgsl(WGSL_MERGE)
            .java(
                    (args, from, to) -> {
                        MemorySegment part = args.buffer(0);
                        int p = args.buffer(1).getAtIndex(JAVA_INT, 0);
                        MemorySegment out = args.buffer(2);
                        int d = args.info(0);
                        int heads = args.info(1);
                        int chunk = args.info(2);
                        int hd = d / heads;
                        int n = p / chunk + 1;
                        for (int id = (from + 255) / 256 * 256;
                                id < to;
                                id += 256) { // thread 0 of each block: its head
                            int h = id / 256;
                            if (h >= heads) {
                                break;
                            }
                            float m = -Float.MAX_VALUE;
                            for (int c = 0; c < n; c++) {
                                m = Math.max(m, f(part, (long) (c * heads + h) * (hd + 2)));
                            }
                            for (int j = 0; j < hd; j++) {
                                float l = 0;
                                float acc = 0;
                                for (int c = 0; c < n; c++) {
                                    long rec = (long) (c * heads + h) * (hd + 2);
                                    float w = (float) Math.exp(f(part, rec) - m);
                                    l += f(part, rec + 1) * w;
                                    acc += f(part, rec + 2 + j) * w;
                                }
                                out.setAtIndex(JAVA_FLOAT, h * hd + j, acc / l);
                            }
                        }
                    },
                    JavaParameters.buffersAndInfo(3));
}
