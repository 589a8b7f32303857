package dev.graphrt.conformance;

import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kernels the kit runs, each in every dialect (CUDA C, which HIP also takes; WGSL; Java). All work on
 * 32-bit words with wrapping unsigned arithmetic, so every dialect computes bit-identical results and tests
 * compare exactly. Layout per docs/kernels.md: buffers in order, then the info buffer; {@code info[0]} is
 * the element count.
 */
public final class KitKernels {
    /** Threads per block / workgroup of every kit kernel (the WGSL texts fix it). */
    public static final int BLOCK = 256;

    private KitKernels() {}

    private static String cuda(String name, String body) {
        return "extern \"C\" __global__ void " + name + "(const unsigned int* src, unsigned int* dst, "
                + "const unsigned int* info) {\n"
                + "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                + "    if (i < info[0]) { " + body + " }\n}\n";
    }

    private static String wgsl(String name, String body) {
        return "@group(0) @binding(0) var<storage, read_write> src: array<u32>;\n"
                + "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
                + "@group(0) @binding(2) var<storage, read_write> info: array<u32>;\n"
                + "@compute @workgroup_size(" + BLOCK + ")\n"
                + "fn " + name + "(@builtin(global_invocation_id) id: vec3<u32>) {\n"
                + "    let i = id.x;\n"
                + "    if (i < info[0]) { " + body + " }\n}\n";
    }

    /** A Java body over {@code dst[i] = f(src[i], i, info)} for i below {@code info[0]}. */
    private interface WordFunction {
        int apply(int value, int index, int step);
    }

    private static JavaKernel java(WordFunction f) {
        return (args, from, to) -> {
            MemorySegment src = args.buffer(0);
            MemorySegment dst = args.buffer(1);
            int n = args.info(0);
            int step = args.infoCount() > 1 ? args.info(1) : 0;
            for (int i = from; i < Math.min(to, n); i++) {
                dst.setAtIndex(ValueLayout.JAVA_INT, i, f.apply(src.getAtIndex(ValueLayout.JAVA_INT, i), i, step));
            }
        };
    }

    /** What every kit kernel takes, in every dialect: {@code (src, dst, info)}. */
    public static final JavaParameters SRC_DST_INFO = JavaParameters.buffersAndInfo(2);

    /** {@code dst[i] = src[i] + 1}. */
    public static final KernelSource ADD_ONE = KernelSource.named("add_one")
            .cuda(cuda("add_one", "dst[i] = src[i] + 1u;"))
            .wgsl(wgsl("add_one", "dst[i] = src[i] + 1u;"))
            .java(java((v, i, s) -> v + 1), SRC_DST_INFO);

    /** {@code dst[i] = src[i] * 2}. */
    public static final KernelSource MUL_TWO = KernelSource.named("mul_two")
            .cuda(cuda("mul_two", "dst[i] = src[i] * 2u;"))
            .wgsl(wgsl("mul_two", "dst[i] = src[i] * 2u;"))
            .java(java((v, i, s) -> v * 2), SRC_DST_INFO);

    /** {@code dst[i] = src[i] * 3 + i + info[1]}: the ping-pong step, reading its length and step from info. */
    public static final KernelSource PING_PONG = KernelSource.named("ping_pong")
            .cuda(cuda("ping_pong", "dst[i] = src[i] * 3u + i + info[1];"))
            .wgsl(wgsl("ping_pong", "dst[i] = src[i] * 3u + i + info[1];"))
            .java(java((v, i, s) -> v * 3 + i + s), SRC_DST_INFO);

    /**
     * A kernel that traps ({@code __trap()}), leaving the device with a sticky error: for backends that declare
     * {@code DEVICE_LOSS_RECOVERY}. CUDA C only (HIP takes the same text); other backends cannot compile it.
     */
    public static final KernelSource TRAP = KernelSource.named("trap_kernel")
            .cuda("extern \"C\" __global__ void trap_kernel(const unsigned int* src, unsigned int* dst, "
                    + "const unsigned int* info) {\n"
                    + "    if (blockIdx.x == 0 && threadIdx.x == 0) { __trap(); }\n"
                    + "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    + "    if (i < info[0]) { dst[i] = src[i]; }\n}\n");

    /**
     * Writes {@code info[1]} words of 7 into {@code dst} whatever its size: with a dst of 16 words and info[1] = 48
     * it writes 128 bytes past the end (inside checked mode's 256-byte guard). WebGPU keeps such writes inside
     * the binding; a Java kernel fails with an index error; CUDA and HIP write past the end.
     */
    public static final KernelSource OVERRUN = KernelSource.named("overrun")
            .cuda("extern \"C\" __global__ void overrun(const unsigned int* src, unsigned int* dst, "
                    + "const unsigned int* info) {\n"
                    + "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    + "    if (i < info[1]) { dst[i] = 7u; }\n}\n")
            .wgsl(wgsl("overrun", "").replace("if (i < info[0]) {  }", "if (i < info[1]) { dst[i] = 7u; }"))
            .java(
                    (args, from, to) -> {
                        MemorySegment dst = args.buffer(1);
                        for (int i = from; i < Math.min(to, args.info(1)); i++) {
                            dst.setAtIndex(ValueLayout.JAVA_INT, i, 7);
                        }
                    },
                    SRC_DST_INFO);

    /**
     * The CUDA C text of an opted-in kernel ({@code KernelSource.programmaticDependent()}): it waits for its
     * predecessors before it reads anything (its info words too), runs {@code body} for {@code i < info[0]}, and
     * lets its own dependents start {@code triggerFirst}: before its work (so they start at once) or after it.
     */
    private static String dependentCuda(String name, String body, boolean triggerFirst) {
        return "extern \"C\" __global__ void " + name + "(const unsigned int* src, unsigned int* dst, "
                + "const unsigned int* info) {\n"
                + (triggerFirst ? "    graphrt_launch_dependents();\n" : "")
                + "    graphrt_wait_for_predecessors();\n"
                + "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                + "    if (i < info[0]) { " + body + " }\n"
                + (triggerFirst ? "" : "    graphrt_launch_dependents();\n")
                + "}\n";
    }

    /**
     * {@link #PING_PONG}, opted into programmatic dependent launch: it waits for its predecessors first and lets its
     * dependents start once its work is done. A long chain of it must give exactly the chain of PING_PONG.
     */
    public static final KernelSource DEPENDENT_PING_PONG = KernelSource.named("dependent_ping_pong")
            .cuda(dependentCuda("dependent_ping_pong", "dst[i] = src[i] * 3u + i + info[1];", false))
            .wgsl(wgsl("dependent_ping_pong", "dst[i] = src[i] * 3u + i + info[1];"))
            .java(java((v, i, s) -> v * 3 + i + s), SRC_DST_INFO)
            .programmaticDependent();

    /** {@link #ADD_ONE}, opted in: the seams model's third kernel. */
    public static final KernelSource DEPENDENT_ADD_ONE = KernelSource.named("dependent_add_one")
            .cuda(dependentCuda("dependent_add_one", "dst[i] = src[i] + 1u;", false))
            .wgsl(wgsl("dependent_add_one", "dst[i] = src[i] + 1u;"))
            .java(java((v, i, s) -> v + 1), SRC_DST_INFO)
            .programmaticDependent();

    /** Rounds of {@link #SLOW_PRODUCER}'s loop in the kit: tens of microseconds on a GPU, far longer than a launch. */
    public static final int SLOW_ROUNDS = 20_000;

    /**
     * A slow opted-in producer that lets its dependents start at once: {@code dst[i]} is {@code src[i]} put through
     * {@code info[1]} rounds of a 32-bit LCG. A kernel after it that did <em>not</em> opt in must still see its
     * output: a backend that launched every kernel as a programmatic dependent would start that one while this
     * one still runs.
     */
    public static final KernelSource SLOW_PRODUCER = KernelSource.named("slow_producer")
            .cuda(dependentCuda(
                    "slow_producer",
                    "unsigned int x = src[i]; for (unsigned int k = 0u; k < info[1]; k++) { x = x * 1664525u + "
                            + "1013904223u; } dst[i] = x;",
                    true))
            .wgsl(wgsl(
                    "slow_producer",
                    "var x = src[i]; for (var k = 0u; k < info[1]; k++) { x = x * 1664525u + 1013904223u; } "
                            + "dst[i] = x;"))
            .java(java((v, i, s) -> slow(v, s)), SRC_DST_INFO)
            .programmaticDependent();

    private static int slow(int value, int rounds) {
        int x = value;
        for (int k = 0; k < rounds; k++) {
            x = x * 1664525 + 1013904223;
        }
        return x;
    }

    /** Host-side model of {@link #SLOW_PRODUCER} with {@code rounds} rounds. */
    public static int[] slowProducer(int[] x, int rounds) {
        int[] y = new int[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = slow(x[i], rounds);
        }
        return y;
    }

    /** Host-side model of {@link #ADD_ONE}. */
    public static int[] addOne(int[] x) {
        int[] y = x.clone();
        for (int i = 0; i < y.length; i++) {
            y[i] += 1;
        }
        return y;
    }

    /** Host-side model of {@link #MUL_TWO}. */
    public static int[] mulTwo(int[] x) {
        int[] y = x.clone();
        for (int i = 0; i < y.length; i++) {
            y[i] *= 2;
        }
        return y;
    }

    /** Host-side model of one {@link #PING_PONG} launch. */
    public static int[] pingPong(int[] x, int step) {
        int[] y = new int[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = x[i] * 3 + i + step;
        }
        return y;
    }

    /** Non-trivial input: a pattern that differs per element and per seed, with large and negative words. */
    public static int[] pattern(int n, int seed) {
        int[] x = new int[n];
        for (int i = 0; i < n; i++) {
            x[i] = (int) ((i * 2_654_435_761L + seed * 40_503L) % 1_000_003) - 500_000;
        }
        return x;
    }

    /** A value no kernel produces from kit inputs within a test: outputs are filled with it before runs. */
    public static final int POISON = 0xDEADBEEF;

    public static int[] poison(int n) {
        int[] x = new int[n];
        java.util.Arrays.fill(x, POISON);
        return x;
    }
}
