package dev.graphrt.examples.gpt;

import static dev.graphrt.examples.gpt.GptKernels.f;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;

/**
 * The kernels of greedy generation on the device ({@link GptDecoder#generatingStep}): the next step's input built
 * from the token the last step chose, and the choice itself, so replayed tokens follow each other without the host.
 * Each in CUDA C, WGSL and Java, as {@link GptKernels}' are.
 */
public final class GptGenerationKernels {
    private GptGenerationKernels() {}

    static final String CUDA_EMBED = """
            extern "C" __global__ void embed(const float* wte0, const float* wte1, const float* wpe, const int* token,
                                             const int* pos, float* x, const int* info) {
                int d = info[0], rows = info[1], i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < d) {
                    int t = token[0], p = pos[0];
                    float e = t < rows ? wte0[t * d + i] : wte1[(t - rows) * d + i];
                    x[i] = e + wpe[p * d + i];
                }
            }
            """;

    static final String WGSL_EMBED = """
            @group(0) @binding(0) var<storage, read_write> wte0: array<f32>;
            @group(0) @binding(1) var<storage, read_write> wte1: array<f32>;
            @group(0) @binding(2) var<storage, read_write> wpe: array<f32>;
            @group(0) @binding(3) var<storage, read_write> token: array<i32>;
            @group(0) @binding(4) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(5) var<storage, read_write> x: array<f32>;
            @group(0) @binding(6) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn embed(@builtin(global_invocation_id) id: vec3<u32>) {
                let d = u32(info[0]);
                let rows = u32(info[1]);
                let i = id.x;
                if (i < d) {
                    let t = u32(token[0]);
                    let p = u32(pos[0]);
                    var e = 0.0;
                    if (t < rows) { e = wte0[t * d + i]; } else { e = wte1[(t - rows) * d + i]; }
                    x[i] = e + wpe[p * d + i];
                }
            }
            """;

    /**
     * The input of the next step from the device's own state: {@code x = wte[token] + wpe[pos]}, the token read from
     * a buffer (the previous step's {@link #ARGMAX}), the tied embedding in two chunks of {@code info[1]} rows (the
     * second unused when the vocabulary fits one). Buffers: wte0, wte1, wpe, token, pos, x; info: d, chunk rows.
     */
    public static final KernelSource EMBED = KernelSource.named("embed")
            .cuda(CUDA_EMBED)
            .wgsl(WGSL_EMBED)
            .java(
                    (args, from, to) -> {
                        int d = args.info(0);
                        int rows = args.info(1);
                        int t = args.buffer(3).getAtIndex(JAVA_INT, 0);
                        int p = args.buffer(4).getAtIndex(JAVA_INT, 0);
                        MemorySegment x = args.buffer(5);
                        for (int i = from; i < Math.min(to, d); i++) {
                            float e = t < rows
                                    ? f(args.buffer(0), (long) t * d + i)
                                    : f(args.buffer(1), (long) (t - rows) * d + i);
                            x.setAtIndex(JAVA_FLOAT, i, e + f(args.buffer(2), (long) p * d + i));
                        }
                    },
                    JavaParameters.buffersAndInfo(6));

    static final String CUDA_ARGMAX = """
            extern "C" __global__ void argmax_next(const float* l0, const float* l1, int* token, int* pos,
                                                   int* generated, const int* info) {
                __shared__ float bestValue[256];
                __shared__ int bestIndex[256];
                int vocab = info[0], rows = info[1], ctx = info[2], t = threadIdx.x;
                float v = __int_as_float(0xff800000); // -infinity, without headers (NVRTC has none)
                int at = 0x7fffffff;
                for (int i = t; i < vocab; i += 256) {
                    float x = i < rows ? l0[i] : l1[i - rows];
                    if (x > v) { v = x; at = i; }
                }
                bestValue[t] = v;
                bestIndex[t] = at;
                __syncthreads();
                for (int k = 128; k > 0; k >>= 1) {
                    if (t < k) {
                        float ov = bestValue[t + k];
                        int oi = bestIndex[t + k];
                        if (ov > bestValue[t] || (ov == bestValue[t] && oi < bestIndex[t])) {
                            bestValue[t] = ov;
                            bestIndex[t] = oi;
                        }
                    }
                    __syncthreads();
                }
                if (t == 0) {
                    int p = pos[0];
                    token[0] = bestIndex[0];
                    generated[p] = bestIndex[0];
                    pos[0] = p + 1 < ctx ? p + 1 : p;
                }
            }
            """;

    static final String WGSL_ARGMAX = """
            @group(0) @binding(0) var<storage, read_write> l0: array<f32>;
            @group(0) @binding(1) var<storage, read_write> l1: array<f32>;
            @group(0) @binding(2) var<storage, read_write> token: array<i32>;
            @group(0) @binding(3) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(4) var<storage, read_write> generated: array<i32>;
            @group(0) @binding(5) var<storage, read_write> info: array<i32>;
            var<workgroup> bestValue: array<f32, 256>;
            var<workgroup> bestIndex: array<u32, 256>;
            @compute @workgroup_size(256)
            fn argmax_next(@builtin(local_invocation_id) lid: vec3<u32>) {
                let vocab = u32(info[0]);
                let rows = u32(info[1]);
                let ctx = info[2];
                let t = lid.x;
                var v = -3.4028234663852886e38;
                var at = 0xffffffffu;
                var seen = false;
                for (var i = t; i < vocab; i += 256u) {
                    var x = 0.0;
                    if (i < rows) { x = l0[i]; } else { x = l1[i - rows]; }
                    if (!seen || x > v) { v = x; at = i; seen = true; }
                }
                bestValue[t] = v;
                bestIndex[t] = at;
                workgroupBarrier();
                for (var k = 128u; k > 0u; k = k / 2u) {
                    if (t < k) {
                        let ov = bestValue[t + k];
                        let oi = bestIndex[t + k];
                        if (ov > bestValue[t] || (ov == bestValue[t] && oi < bestIndex[t])) {
                            bestValue[t] = ov;
                            bestIndex[t] = oi;
                        }
                    }
                    workgroupBarrier();
                }
                if (t == 0u) {
                    let p = pos[0];
                    token[0] = i32(bestIndex[0]);
                    generated[p] = i32(bestIndex[0]);
                    if (p + 1 < ctx) { pos[0] = p + 1; }
                }
            }
            """;

    /**
     * Greedy decoding's choice on the device: the index of the largest logit (the lowest index among equal ones)
     * becomes the next step's token and is kept at {@code generated[pos]}, and the position moves on (not past
     * {@code ctx - 1}). One block of 256. Buffers: logits0, logits1, token, pos, generated; info: vocab, chunk rows,
     * ctx.
     */
    public static final KernelSource ARGMAX = KernelSource.named("argmax_next")
            .cuda(CUDA_ARGMAX)
            .wgsl(WGSL_ARGMAX)
            .java(
                    (args, from, to) -> {
                        if (from != 0) {
                            return; // one block: the range holding id 0 does it
                        }
                        int vocab = args.info(0);
                        int rows = args.info(1);
                        int ctx = args.info(2);
                        int best = 0;
                        float value = Float.NEGATIVE_INFINITY;
                        for (int i = 0; i < vocab; i++) {
                            float x = i < rows ? f(args.buffer(0), i) : f(args.buffer(1), i - rows);
                            if (x > value || i == 0) {
                                value = x;
                                best = i;
                            }
                        }
                        MemorySegment pos = args.buffer(3);
                        int p = pos.getAtIndex(JAVA_INT, 0);
                        args.buffer(2).setAtIndex(JAVA_INT, 0, best);
                        args.buffer(4).setAtIndex(JAVA_INT, p, best);
                        pos.setAtIndex(JAVA_INT, 0, p + 1 < ctx ? p + 1 : p);
                    },
                    JavaParameters.buffersAndInfo(5));

    /** The greedy choice over {@code logits}: the index of the largest, the lowest among equal ones. */
    public static int argmax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if (logits[i] > logits[best]) {
                best = i;
            }
        }
        return best;
    }
}
