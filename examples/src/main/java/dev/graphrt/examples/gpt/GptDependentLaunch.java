package dev.graphrt.examples.gpt;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPT step's kernels opted into programmatic dependent launch: a rewrite of their CUDA C text, apart from the
 * kernels themselves ({@link GptKernels}), since it is about when a kernel may start, not what it computes.
 */
final class GptDependentLaunch {
    private GptDependentLaunch() {}

    /**
     * {@code plain} opted into programmatic dependent launch, letting the next kernel start once its own blocks have
     * read their weights ({@code lateTrigger}) or only as they exit; its other texts are unchanged. Its CUDA C text
     * waits for its predecessors before it reads what they wrote: a gemv where its {@code GPT_WAIT()} hook stands,
     * after its first weight loads are issued (the weights and info words are constant in a step), so a matrix
     * starts streaming in while the kernel before it drains; any other kernel as its first statement (it reads the
     * position, which the step's last kernel moves on when generating). A gemv's {@code GPT_TRIGGER()} hook stands
     * after its row loop. On cuda on an H200 (871b244, replayed, µs a token, two passes): plain 471.6 / 473.5, no
     * trigger but the exit 453.8 / 459.9, the late trigger 457.5 / 467.7; a trigger at the start of every kernel
     * (2d00685) 475.1 / 471.1. So the exit is the default ({@link GptDecoder}, {@code -Dgpt.trigger}). Elsewhere it
     * is the same kernel.
     */
    static KernelSource programmaticDependent(KernelSource plain, boolean lateTrigger) {
        String entry = plain.entryPoint();
        String cuda = plain.text(Dialect.CUDA_C).orElseThrow();
        Matcher kernel = Pattern.compile(
                        "__global__\\s+void\\s+(?:__launch_bounds__\\([^)]*\\)\\s+)?" + Pattern.quote(entry) + "\\(")
                .matcher(cuda);
        int signature = kernel.find() ? kernel.start() : -1;
        int body = signature < 0 ? -1 : cuda.indexOf('{', signature);
        if (signature < 0 || body < 0) {
            throw new IllegalArgumentException("kernel '" + entry + "' has no body to wait in");
        }
        String opted = cuda.contains("GPT_WAIT();") // a kernel that calls the hook (the parts define its default)
                ? dependentHooks(lateTrigger) + cuda
                : cuda.substring(0, body + 1) + "\n    graphrt_wait_for_predecessors();" + cuda.substring(body + 1);
        return plain.cuda(opted).programmaticDependent(); // its other texts and its Java kernel as they were
    }

    /** A gemv's hooks as the prelude's calls (no trigger but the blocks' exit unless {@code lateTrigger}). */
    static String dependentHooks(boolean lateTrigger) {
        return "#define GPT_WAIT() graphrt_wait_for_predecessors()\n#define GPT_TRIGGER() "
                + (lateTrigger ? "graphrt_launch_dependents()" : "") + "\n#line 1\n";
    }
}
