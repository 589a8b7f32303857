package dev.graphrt.api;

/**
 * A kernel in the {@link Dialect#JAVA} dialect. The CPU backend calls {@link #run} over disjoint
 * ranges of global invocation ids, possibly in parallel; like a GPU kernel it must bounds-check ids
 * against its own length (the launch covers whole blocks).
 */
@FunctionalInterface
public interface JavaKernel {
    /** Runs invocations {@code fromId} (inclusive) to {@code toId} (exclusive). */
    void run(JavaKernelArgs args, int fromId, int toId);
}
