package dev.graphrt.examples.gpt;

import static dev.graphrt.examples.gpt.GptKernels.f;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The decoder's attention kernels in every dialect (CUDA C, also compiled by hip; WGSL; Java), in the argument layout
 * of docs/kernels.md; the gemvs are {@link GptKernels}'.
 *
 * <p>{@code attention(qkv, k, v, pos, part; d, heads, chunk, ctx)}: one block of 256 per head and chunk of
 *       {@value #ATTENTION_CHUNK} positions up to {@code pos}, each writing its chunk's maximum score, sum of
 *       exponentials and weighted values (split attention, as flash-decoding does). The caches are head-major,
 *       {@code [head][position][d / heads]}, so a block's keys and values are one contiguous run each. The block
 *       whose chunk holds {@code pos} also stores the new key and value into the caches (it reads them from
 *       {@code qkv}, so no other block needs them). {@code attention_merge(part, pos, out; d, heads, chunk)}
 *       rescales and sums the chunks per head, its 256 threads spread over chunks and dimensions.
 *       {@code attention_merged(qkv, k, v, pos, part, count, out; d, heads, chunk, ctx)} is both in one launch: the
 *       last block of a head to finish (counted in {@code count}) merges the head.
 *
 * <p>The position is read from a buffer, so one captured step serves every position.
 */
public final class GptAttentionKernels {
    private GptAttentionKernels() {}

    /** An attention kernel ({@link #ATTENTION}, {@link #MERGE}, {@link #ATTENTION_MERGED}) for one shape only. */
    public static KernelSource attentionOfShape(KernelSource attention, int d, int heads, int chunk, int ctx) {
        return GptKernels.withShape(
                attention,
                "#define ATT_D " + d + "\n#define ATT_HEADS " + heads + "\n#define ATT_CHUNK " + chunk
                        + "\n#define ATT_CTX " + ctx + "\n");
    }

    /**
     * One attention block's chunk, as a device function both CUDA attention kernels call: the chunk's maximum score,
     * sum of exponentials and weighted values into its record, the new key and value into the caches where the chunk
     * holds the position. Returns whether the chunk holds any position up to it (a chunk past it writes an empty
     * record). {@code s} and {@code red} are the block's 256 words of shared memory each.
     */
    static final String CUDA_ATTENTION_PARTS = GptKernels.CUDA_COMMON + """
            #ifdef ATT_D // the shape fixed in the text (GptKernels.withShape): no load waits for an info word
            #define ATT_SHAPE(info) constexpr int d = ATT_D, heads = ATT_HEADS, chunk = ATT_CHUNK
            #define ATT_CONTEXT(info) ATT_CTX
            // a launch whose info words say another shape than the text's is a bug: trap (words: how many it has)
            #define ATT_CHECK(info, words) \\
                if (blockIdx.x == 0 && threadIdx.x == 0 && ((info)[0] != ATT_D || (info)[1] != ATT_HEADS \\
                    || (info)[2] != ATT_CHUNK || (words > 3 && (info)[words > 3 ? 3 : 0] != ATT_CTX))) __trap()
            #else
            #define ATT_SHAPE(info) int d = (info)[0], heads = (info)[1], chunk = (info)[2]
            #define ATT_CONTEXT(info) ((info)[3])
            #define ATT_CHECK(info, words)
            #endif
            __device__ bool attention_chunk(const float* __restrict__ qkv, float* __restrict__ k,
                                            float* __restrict__ v, int p, float* __restrict__ rec, int h, int c,
                                            const int* __restrict__ info, float* s, float* red) {
                __shared__ float wmax[8], wsum[8];
                ATT_SHAPE(info);
                int ctx = ATT_CONTEXT(info), hd = d / heads;
                int t = threadIdx.x;
                int start = c * chunk, end = min(start + chunk, p + 1), n = end - start;
                if (n <= 0) {
                    if (t == 0) { rec[0] = -3.402823466e+38f; rec[1] = 0.0f; }
                    return false;
                }
                const float* q = qkv + h * hd;
                const float* kNew = qkv + d + h * hd;
                const float* vNew = qkv + 2 * d + h * hd;
                if (p < end && t < hd) { // this chunk holds the new position: its key and value into the caches
                    k[((size_t) h * ctx + p) * hd + t] = kNew[t];
                    v[((size_t) h * ctx + p) * hd + t] = vNew[t];
                }
                int j = t % hd, grp = t / hd, groups = 256 / hd;
                float vv[8]; // this thread's first values, loaded while the scores are computed
                #pragma unroll
                for (int u = 0; u < 8; u++) {
                    int i = grp + u * groups;
                    vv[u] = i >= n ? 0.0f : start + i == p ? vNew[j] : v[((size_t) h * ctx + start + i) * hd + j];
                }
                float scale = 1.0f / sqrtf((float) hd);
                int warp = t / 32, lane = t % 32;
                for (int i0 = warp; i0 < n; i0 += 32) { // each warp four positions at once: their loads overlap
                    float acc[4];
                    #pragma unroll
                    for (int u = 0; u < 4; u++) {
                        int i = i0 + 8 * u;
                        acc[u] = 0.0f;
                        if (i < n) {
                            const float* kr = start + i == p ? kNew : k + ((size_t) h * ctx + start + i) * hd;
                            #pragma unroll 4
                            for (int jj = lane; jj < hd; jj += 32) acc[u] += q[jj] * kr[jj];
                        }
                    }
                    #pragma unroll
                    for (int u = 0; u < 4; u++) {
                        float a = warp_sum(acc[u]);
                        if (lane == 0 && i0 + 8 * u < n) s[i0 + 8 * u] = a * scale;
                    }
                }
                __syncthreads();
                // a chunk of at most a warp's width: every warp reads its scores and finds their maximum and sum
                // itself, with no barrier (the same sums, in the same order, as the general path below)
                bool inWarp = chunk <= 32;
                float m = -3.402823466e+38f, l = 0.0f;
                if (inWarp) {
                    float si = lane < n ? s[lane] : -3.402823466e+38f;
                    m = warp_max(si);
                    l = warp_sum(lane < n ? expf(si - m) : 0.0f);
                } else {
                    for (int i = t; i < n; i += 256) m = fmaxf(m, s[i]);
                    m = warp_max(m);
                    if (lane == 0) wmax[warp] = m;
                    __syncthreads();
                    for (int i = 0; i < 8; i++) m = fmaxf(m, wmax[i]);
                    for (int i = t; i < n; i += 256) { float e = expf(s[i] - m); s[i] = e; l += e; }
                    l = warp_sum(l);
                    if (lane == 0) wsum[warp] = l;
                    __syncthreads();
                    l = 0.0f;
                    for (int i = 0; i < 8; i++) l += wsum[i];
                }
                float acc = 0.0f;
                #pragma unroll
                for (int u = 0; u < 8; u++) { // s holds scores in a warp's chunk, else their exponentials
                    int i = grp + u * groups;
                    if (i < n) acc += (inWarp ? expf(s[i] - m) : s[i]) * vv[u];
                }
                for (int i = grp + 8 * groups; i < n; i += groups) {
                    acc += s[i] * (start + i == p ? vNew[j] : v[((size_t) h * ctx + start + i) * hd + j]);
                }
                red[t] = acc;
                __syncthreads();
                if (grp == 0) {
                    for (int o = 1; o < groups; o++) acc += red[o * hd + j];
                    rec[2 + j] = acc;
                    if (j == 0) { rec[0] = m; rec[1] = l; }
                }
                return true;
            }
            """;

    /**
     * The merge of one head's chunk records, as a device function both merging kernels call: {@code n} records of
     * {@code (m, l, hd values)}, {@code stride} words apart from {@code base}, rescaled to the largest {@code m} and
     * summed into {@code out}. Each warp finds the maximum and the sum itself, in one pass that rescales as it goes, so
     * no barrier precedes the values; every thread's first eight records are loaded before any of that arithmetic.
     * The records are read volatile: in the fused kernel other blocks wrote them during this launch.
     */
    static final String CUDA_MERGE_PARTS = """
            __device__ void merge_head(const volatile float* base, size_t stride, int n, int hd, float* out,
                                       float* red) {
                int t = threadIdx.x, lane = t % 32, j = t % hd, grp = t / hd, groups = blockDim.x / hd;
                float m = -3.402823466e+38f, l = 0.0f, acc = 0.0f;
                for (int c0 = grp; c0 < n; c0 += 8 * groups) {
                    float pv[8], pm[8];
                    #pragma unroll
                    for (int u = 0; u < 8; u++) {
                        int c = c0 + u * groups;
                        pv[u] = c < n ? base[c * stride + 2 + j] : 0.0f;
                        pm[u] = c < n ? base[c * stride] : -3.402823466e+38f;
                    }
                    if (c0 == grp) { // once, a whole warp at a time (a group is whole warps)
                        for (int c = lane; c < n; c += 32) {
                            float mc = base[c * stride], lc = base[c * stride + 1], mn = fmaxf(m, mc);
                            l = l * expf(m - mn) + lc * expf(mc - mn);
                            m = mn;
                        }
                        for (int o = 16; o > 0; o >>= 1) {
                            float mo = __shfl_xor_sync(0xffffffffu, m, o), lo = __shfl_xor_sync(0xffffffffu, l, o);
                            float mn = fmaxf(m, mo);
                            l = l * expf(m - mn) + lo * expf(mo - mn);
                            m = mn;
                        }
                    }
                    #pragma unroll
                    for (int u = 0; u < 8; u++) acc += pv[u] * expf(pm[u] - m);
                }
                red[t] = acc;
                __syncthreads();
                if (grp == 0) {
                    for (int o = 1; o < groups; o++) acc += red[o * hd + j];
                    out[j] = acc / l;
                }
            }
            """;

    static final String CUDA_ATTENTION = CUDA_ATTENTION_PARTS + """
            extern "C" __global__ void attention(const float* __restrict__ qkv, float* __restrict__ k,
                                                 float* __restrict__ v, const int* __restrict__ pos,
                                                 float* __restrict__ part, const int* __restrict__ info) {
                __shared__ float s[256];
                __shared__ float red[256];
                ATT_SHAPE(info);
                int hd = d / heads;
                attention_chunk(qkv, k, v, pos[0], part + (size_t) blockIdx.x * (hd + 2), blockIdx.x % heads,
                                blockIdx.x / heads, info, s, red);
                ATT_CHECK(info, 4);
            }
            """;

    static final String CUDA_MERGE = CUDA_ATTENTION_PARTS + CUDA_MERGE_PARTS + """
            extern "C" __global__ void attention_merge(const float* __restrict__ part, const int* __restrict__ pos,
                                                       float* __restrict__ out, const int* __restrict__ info) {
                __shared__ float red[256];
                ATT_SHAPE(info);
                int hd = d / heads, h = blockIdx.x;
                merge_head(part + (size_t) h * (hd + 2), (size_t) heads * (hd + 2), pos[0] / chunk + 1, hd,
                           out + h * hd, red);
                ATT_CHECK(info, 3);
            }
            """;

    /**
     * Attention with its merge in the same launch: each block writes its chunk's record, then counts itself done for
     * its head ({@code count}, one word a head, zero between launches); the head's last block merges the head's
     * records into {@code out} and sets the count back to zero. Nothing waits on another block, so any grid size is
     * safe. One launch a layer fewer than {@code attention} then {@code attention_merge}.
     */
    static final String CUDA_ATTENTION_MERGED = CUDA_ATTENTION_PARTS + CUDA_MERGE_PARTS + """
            extern "C" __global__ void attention_merged(const float* __restrict__ qkv, float* __restrict__ k,
                                                        float* __restrict__ v, const int* __restrict__ pos,
                                                        float* part, int* __restrict__ count,
                                                        float* __restrict__ out, const int* __restrict__ info) {
                __shared__ float s[256];
                __shared__ float red[256];
                __shared__ bool last;
                ATT_SHAPE(info);
                int hd = d / heads, p = pos[0];
                int h = blockIdx.x % heads;
                if (!attention_chunk(qkv, k, v, p, part + (size_t) blockIdx.x * (hd + 2), h, blockIdx.x / heads,
                                     info, s, red)) {
                    return; // a chunk past the position: not one the merge counts
                }
                ATT_CHECK(info, 4); // block 0 always holds position 0, so it gets here
                __threadfence(); // this block's record is visible to every block before it counts itself done
                __syncthreads();
                if (threadIdx.x == 0) last = atomicAdd(&count[h], 1) == p / chunk;
                __syncthreads();
                if (!last) return;
                if (threadIdx.x == 0) count[h] = 0; // every chunk of the head has counted: ready for the next launch
                __threadfence();
                merge_head(part + (size_t) h * (hd + 2), (size_t) heads * (hd + 2), p / chunk + 1, hd, out + h * hd,
                           red);
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
                let ctx = u32(info[3]); // the caches are head-major: [head][position][hd]
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
                if (p < end && t < hd) { // this chunk holds the new position: its key and value into the caches
                    k[(h * ctx + p) * hd + t] = qkv[d + h * hd + t];
                    v[(h * ctx + p) * hd + t] = qkv[2u * d + h * hd + t];
                }
                let scale = 1.0 / sqrt(f32(hd));
                if (t < n) {
                    var acc = 0.0;
                    if (start + t == p) {
                        for (var j = 0u; j < hd; j++) { acc += qkv[h * hd + j] * qkv[d + h * hd + j]; }
                    } else {
                        for (var j = 0u; j < hd; j++) { acc += qkv[h * hd + j] * k[(h * ctx + start + t) * hd + j]; }
                    }
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
                for (var i = q; i < n; i += parts) {
                    if (start + i == p) { acc += s[i] * qkv[2u * d + h * hd + j]; }
                    else { acc += s[i] * v[(h * ctx + start + i) * hd + j]; }
                }
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
                        for (int id = (from + 255) / 256 * 256; id < to; id += 256) { // thread 0 of each block
                            javaAttentionChunk(args, id / 256);
                        }
                    },
                    JavaParameters.buffersAndInfo(5));

    public static final KernelSource MERGE = KernelSource.named("attention_merge")
            .cuda(CUDA_MERGE)
            .wgsl(WGSL_MERGE)
            .java(
                    (args, from, to) -> {
                        int heads = args.info(1);
                        for (int id = (from + 255) / 256 * 256; id < to; id += 256) { // thread 0 of each block
                            int h = id / 256;
                            if (h >= heads) {
                                break;
                            }
                            javaMergeHead(args.buffer(0), args.buffer(1), args.buffer(2), args, h);
                        }
                    },
                    JavaParameters.buffersAndInfo(3));

    /** A word of a count buffer, read and added to atomically (the Java twin of CUDA's {@code atomicAdd}). */
    private static final VarHandle COUNT = JAVA_INT.arrayElementVarHandle();

    /**
     * Attention and its merge in one launch ({@code attention_merged(qkv, k, v, pos, part, count, out; d, heads,
     * chunk, ctx)}, {@link #CUDA_ATTENTION_MERGED}): the head's last chunk to finish merges. No WGSL text, since WGSL
     * has no fence that makes one workgroup's writes visible to another within a dispatch; wgpu keeps the two launches.
     */
    public static final KernelSource ATTENTION_MERGED = KernelSource.named("attention_merged")
            .cuda(CUDA_ATTENTION_MERGED)
            .java(
                    (args, from, to) -> {
                        MemorySegment count = args.buffer(5);
                        int p = args.buffer(3).getAtIndex(JAVA_INT, 0);
                        int heads = args.info(1);
                        int chunk = args.info(2);
                        for (int id = (from + 255) / 256 * 256; id < to; id += 256) { // thread 0 of each block
                            int block = id / 256;
                            int h = block % heads;
                            if (!javaAttentionChunk(args, block)) {
                                continue;
                            }
                            // a volatile add: the records written before it are seen by the block that counts last
                            if ((int) COUNT.getAndAdd(count, 0L, (long) h, 1) == p / chunk) {
                                COUNT.setVolatile(count, 0L, (long) h, 0);
                                javaMergeHead(args.buffer(4), args.buffer(3), args.buffer(6), args, h);
                            }
                        }
                    },
                    JavaParameters.buffersAndInfo(7));

    /**
     * One attention block's record (buffers qkv, k, v, pos, part first; info d, heads, chunk, ctx), as
     * {@link #CUDA_ATTENTION_PARTS} computes it; returns whether its chunk holds any position up to the current one.
     */
    private static boolean javaAttentionChunk(JavaKernelArgs args, int block) {
        MemorySegment qkv = args.buffer(0);
        MemorySegment k = args.buffer(1);
        MemorySegment v = args.buffer(2);
        int p = args.buffer(3).getAtIndex(JAVA_INT, 0);
        MemorySegment part = args.buffer(4);
        int d = args.info(0);
        int heads = args.info(1);
        int chunk = args.info(2);
        int ctx = args.info(3);
        int hd = d / heads;
        float scale = (float) (1 / Math.sqrt(hd));
        int h = block % heads;
        int start = block / heads * chunk;
        int n = Math.min(start + chunk, p + 1) - start;
        long rec = (long) block * (hd + 2);
        if (n <= 0) {
            part.setAtIndex(JAVA_FLOAT, rec, -Float.MAX_VALUE);
            part.setAtIndex(JAVA_FLOAT, rec + 1, 0f);
            return false;
        }
        if (p < start + n) { // this chunk holds the new position: into the caches
            for (int j = 0; j < hd; j++) {
                long at = ((long) h * ctx + p) * hd + j;
                k.setAtIndex(JAVA_FLOAT, at, f(qkv, d + h * hd + j));
                v.setAtIndex(JAVA_FLOAT, at, f(qkv, 2L * d + h * hd + j));
            }
        }
        float[] s = new float[n];
        float m = -Float.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            float acc = 0;
            for (int j = 0; j < hd; j++) {
                acc += f(qkv, h * hd + j) * f(k, ((long) h * ctx + start + i) * hd + j);
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
                acc += s[i] * f(v, ((long) h * ctx + start + i) * hd + j);
            }
            part.setAtIndex(JAVA_FLOAT, rec + 2 + j, acc);
        }
        part.setAtIndex(JAVA_FLOAT, rec, m);
        part.setAtIndex(JAVA_FLOAT, rec + 1, l);
        return true;
    }

    /** Head {@code h}'s chunk records in {@code part} rescaled and summed into {@code out} (info d, heads, chunk). */
    private static void javaMergeHead(
            MemorySegment part, MemorySegment pos, MemorySegment out, JavaKernelArgs args, int h) {
        int p = pos.getAtIndex(JAVA_INT, 0);
        int d = args.info(0);
        int heads = args.info(1);
        int chunk = args.info(2);
        int hd = d / heads;
        int n = p / chunk + 1;
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
}
