package dev.graphrt.examples.gpt;

import static dev.graphrt.examples.gpt.GptKernels.f;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;

/**
 * bf16 weights with fp32 arithmetic ({@code GptDecoder(..., bf16)}): the packing of a matrix, two values to a word,
 * and the kernels that read such matrices. Each in CUDA C, WGSL and Java, as {@link GptKernels}' are.
 */
public final class GptBf16Kernels {
    private GptBf16Kernels() {}

    /**
     * {@code values} rounded to bf16 (round to nearest, ties to even) and packed two to a 32-bit word, element
     * {@code 2i} in the low half of word {@code i}: how the bf16 kernels read a weight matrix. The length must be even.
     */
    public static int[] packBf16(float[] values) {
        if (values.length % 2 != 0) {
            throw new IllegalArgumentException("bf16 packs pairs: " + values.length + " values");
        }
        int[] words = new int[values.length / 2];
        for (int i = 0; i < words.length; i++) {
            words[i] = bf16Bits(values[2 * i]) | bf16Bits(values[2 * i + 1]) << 16;
        }
        return words;
    }

    /** The bf16 nearest {@code value}, as a float: what a bf16 kernel computes with where the fp32 one has it. */
    public static float roundToBf16(float value) {
        return Float.intBitsToFloat(bf16Bits(value) << 16);
    }

    private static int bf16Bits(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (bits >>> 16) | 0x40; // stays a NaN
        }
        return (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
    }

    /** Load {@code k} of a bf16 row (eight values) times the input in shared memory: the bf16 kernels' {@code dot}. */
    static final String CUDA_DOT_BF16 = """
            __device__ __forceinline__ float lo(unsigned int p) { return __uint_as_float(p << 16); }
            __device__ __forceinline__ float hi(unsigned int p) { return __uint_as_float(p & 0xffff0000u); }
            // load k holds values 8k to 8k + 7: two float4 of the input
            __device__ __forceinline__ float dot(uint4 a, const float4* x4, int k) {
                float4 b = x4[2 * k], c = x4[2 * k + 1];
                return lo(a.x) * b.x + hi(a.x) * b.y + lo(a.y) * b.z + hi(a.y) * b.w
                     + lo(a.z) * c.x + hi(a.z) * c.y + lo(a.w) * c.z + hi(a.w) * c.w;
            }
            """;

    static final String CUDA_GEMV_BF16 = CUDA_DOT_BF16 + """
            __device__ float row_dot(const unsigned int* wr, const float* xs, int cols, int t, int tpr) {
                float acc = 0.0f;
                for (int j = t; j < cols / 2; j += tpr) acc += lo(wr[j]) * xs[2 * j] + hi(wr[j]) * xs[2 * j + 1];
                return acc;
            }
            """ + GptKernels.CUDA_GEMV_PARTS + """
            extern "C" __global__ void __launch_bounds__(256, 4) gemv_bf16(const unsigned int* __restrict__ w, const float* __restrict__ x,
                                                 const float* __restrict__ g, const float* __restrict__ b,
                                                 const float* __restrict__ bias, const float* __restrict__ r,
                                                 float* __restrict__ y, const int* __restrict__ info) {
                gemv_rows<unsigned int, uint4, 8>(w, x, g, b, bias, r, y, info);
            }
            """;

    static final String WGSL_GEMV_BF16 = "@group(0) @binding(0) var<storage, read_write> w: array<u32>;\n"
            + GptKernels.WGSL_GEMV_BINDINGS + GptKernels.WGSL_GEMV_PARTS + """
            @compute @workgroup_size(64)
            fn gemv_bf16(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
                let t = lid.x;
                let u = prepare(t);
                let rows = u32(u[0]);
                let half = u32(u[1]) / 2u;
                for (var row = wg.x; row < rows; row += groups.x) { // the input prepared once for several rows
                    var acc = 0.0;
                    for (var j = t; j < half; j += 64u) {
                        let p = w[row * half + j];
                        acc += bitcast<f32>(p << 16u) * input(2u * j) + bitcast<f32>(p & 0xffff0000u) * input(2u * j + 1u);
                    }
                    let total = sum64(acc, t);
                    if (t == 0u) { finish(total, row, u[2]); }
                }
            }
            """;

    /**
     * {@link GptKernels#GEMV} over bf16 weights ({@link #packBf16}: two to a word) with fp32 products and sums: half the bytes
     * a row streams. Buffers and info as GEMV's; {@code cols} must be even.
     */
    public static final KernelSource GEMV_BF16 = KernelSource.named("gemv_bf16")
            .cuda(CUDA_GEMV_BF16)
            .wgsl(WGSL_GEMV_BF16)
            .java(
                    (args, from, to) -> GptKernels.gemvRows(args, from, to, (w, x, row, cols) -> {
                        float acc = 0;
                        long base = (long) row * (cols / 2);
                        for (int j = 0; j < cols / 2; j++) {
                            int p = w.getAtIndex(JAVA_INT, base + j);
                            acc += Float.intBitsToFloat(p << 16) * x[2 * j]
                                    + Float.intBitsToFloat(p & 0xFFFF0000) * x[2 * j + 1];
                        }
                        return acc;
                    }),
                    JavaParameters.buffersAndInfo(7));

    static final String CUDA_EMBED_BF16 = """
            __device__ __forceinline__ float bf16At(const unsigned int* w, long i) {
                unsigned int p = w[i >> 1];
                return __uint_as_float((i & 1) ? (p & 0xffff0000u) : (p << 16));
            }
            extern "C" __global__ void embed_bf16(const unsigned int* wte0, const unsigned int* wte1, const float* wpe,
                                                  const int* token, const int* pos, float* x, const int* info) {
                int d = info[0], rows = info[1], i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < d) {
                    int t = token[0], p = pos[0];
                    float e = t < rows ? bf16At(wte0, (long) t * d + i) : bf16At(wte1, (long) (t - rows) * d + i);
                    x[i] = e + wpe[p * d + i];
                }
            }
            """;

    static final String WGSL_EMBED_BF16 = """
            @group(0) @binding(0) var<storage, read_write> wte0: array<u32>;
            @group(0) @binding(1) var<storage, read_write> wte1: array<u32>;
            @group(0) @binding(2) var<storage, read_write> wpe: array<f32>;
            @group(0) @binding(3) var<storage, read_write> token: array<i32>;
            @group(0) @binding(4) var<storage, read_write> pos: array<i32>;
            @group(0) @binding(5) var<storage, read_write> x: array<f32>;
            @group(0) @binding(6) var<storage, read_write> info: array<i32>;
            fn unpack(p: u32, odd: bool) -> f32 {
                return bitcast<f32>(select(p << 16u, p & 0xffff0000u, odd));
            }
            @compute @workgroup_size(256)
            fn embed_bf16(@builtin(global_invocation_id) id: vec3<u32>) {
                let d = u32(info[0]);
                let rows = u32(info[1]);
                let i = id.x;
                if (i < d) {
                    let t = u32(token[0]);
                    let p = u32(pos[0]);
                    var e = 0.0;
                    if (t < rows) {
                        let k = t * d + i;
                        e = unpack(wte0[k / 2u], (k & 1u) == 1u);
                    } else {
                        let k = (t - rows) * d + i;
                        e = unpack(wte1[k / 2u], (k & 1u) == 1u);
                    }
                    x[i] = e + wpe[p * d + i];
                }
            }
            """;

    /** {@link GptGenerationKernels#EMBED} over a bf16 embedding ({@link #packBf16}); the position's embedding stays fp32. */
    public static final KernelSource EMBED_BF16 = KernelSource.named("embed_bf16")
            .cuda(CUDA_EMBED_BF16)
            .wgsl(WGSL_EMBED_BF16)
            .java(
                    (args, from, to) -> {
                        int d = args.info(0);
                        int rows = args.info(1);
                        int t = args.buffer(3).getAtIndex(JAVA_INT, 0);
                        int p = args.buffer(4).getAtIndex(JAVA_INT, 0);
                        MemorySegment x = args.buffer(5);
                        for (int i = from; i < Math.min(to, d); i++) {
                            MemorySegment table = t < rows ? args.buffer(0) : args.buffer(1);
                            long k = (long) (t < rows ? t : t - rows) * d + i;
                            int word = table.getAtIndex(JAVA_INT, k >> 1);
                            float e = Float.intBitsToFloat((k & 1) == 1 ? word & 0xFFFF0000 : word << 16);
                            x.setAtIndex(JAVA_FLOAT, i, e + f(args.buffer(2), (long) p * d + i));
                        }
                    },
                    JavaParameters.buffersAndInfo(6));
}
