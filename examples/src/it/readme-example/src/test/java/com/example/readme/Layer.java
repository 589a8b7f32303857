package com.example.readme;

import dev.graphrt.api.JavaKernel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the README's example leaves to its reader: the layer kernel ({@code y = a x + b} over the first
 * {@code info[0]} floats, {@code a} and {@code b} the floats in {@code info[1]} and {@code info[2]}) in the three
 * dialects, and the token embeddings. The Java body also notes what the example cannot return (its {@code result}
 * is a local): the last output of the second layer ({@code a = -1}) and how many invocations ran.
 */
public final class Layer {
    public static final String CUDA_TEXT = """
            extern "C" __global__ void layer(const float* x, float* y, const int* info) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < info[0]) {
                    y[i] = __int_as_float(info[1]) * x[i] + __int_as_float(info[2]);
                }
            }
            """;
    public static final String WGSL_TEXT = """
            @group(0) @binding(0) var<storage, read_write> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> y: array<f32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;
            @compute @workgroup_size(256)
            fn layer(@builtin(global_invocation_id) id: vec3<u32>) {
                let i = i32(id.x);
                if (i < info[0]) {
                    y[i] = bitcast<f32>(info[1]) * x[i] + bitcast<f32>(info[2]);
                }
            }
            """;
    static final AtomicLong INVOCATIONS = new AtomicLong();
    static volatile float[] secondLayerOut = new float[0];

    public static final JavaKernel JAVA_BODY = (args, from, to) -> {
        MemorySegment x = args.buffer(0);
        MemorySegment y = args.buffer(1);
        int n = args.info(0);
        float a = args.infoFloat(1);
        float b = args.infoFloat(2);
        float[] noted = a == -1f ? secondLayerOut : null;
        for (int i = from; i < Math.min(to, n); i++) {
            float v = a * x.getAtIndex(ValueLayout.JAVA_FLOAT, i) + b;
            y.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            if (noted != null && i < noted.length) {
                noted[i] = v;
            }
        }
        INVOCATIONS.addAndGet(Math.max(0, Math.min(to, n) - from));
    };

    private Layer() {
    }

    /** Token {@code t}'s embedding: small integers, so every layer's result is exact in float. */
    public static float[] tokenEmbedding(int t, int n) {
        float[] e = new float[n];
        for (int i = 0; i < n; i++) {
            e[i] = (i * 7 + t) % 11 - 5;
        }
        return e;
    }
}
