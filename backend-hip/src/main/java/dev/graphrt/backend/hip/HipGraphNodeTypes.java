package dev.graphrt.backend.hip;

import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.driver.DriverConstants;

/**
 * Which captured graph nodes GraphRT refuses to relaunch, in the numbering of the loaded runtime.
 *
 * <p>Why version-dependent: ROCm renumbered {@code hipGraphNodeType} in 5.3 (kernel went from 1 to 0, as in
 * CUDA) and added memory allocation/free nodes (10, 11) in 5.5. Under the old numbering there is no memory
 * node type, and 10/11 mean memcpy-from/to-symbol; a library of that generation that captured an allocation
 * (the HIP-on-CUDA test library does, if asked) can only report a type outside the known range, so every
 * unknown type is refused there too. The rule is the cuda backend's: a graph holding an allocation node it
 * never frees cannot be relaunched, so the capture must have allocated nothing (the core's pools see to it).
 *
 * @param runtimeVersion {@code HIP_VERSION} of the runtime ({@code hipRuntimeGetVersion})
 */
record HipGraphNodeTypes(int runtimeVersion) {

    /** Whether this runtime counts node types from 0 (ROCm 5.3 and later). */
    boolean zeroBased() {
        return runtimeVersion >= HipNative.NODE_TYPES_ZERO_BASED_SINCE;
    }

    /** The number of a kernel node ({@code hipGraphNodeTypeKernel}): 0 from ROCm 5.3 on, 1 before. */
    int kernel() {
        return zeroBased() ? DriverConstants.GRAPH_NODE_TYPE_KERNEL : HipNative.LEGACY_NODE_TYPE_FIRST;
    }

    /** Whether a node of {@code type} makes a graph unsafe to relaunch. */
    boolean refuses(int type) {
        if (zeroBased()) {
            return type == DriverConstants.GRAPH_NODE_TYPE_MEM_ALLOC
                    || type == DriverConstants.GRAPH_NODE_TYPE_MEM_FREE;
        }
        return type < HipNative.LEGACY_NODE_TYPE_FIRST || type >= HipNative.LEGACY_NODE_TYPE_COUNT;
    }

    /** Throws {@link GraphNotRelaunchableException} when any of {@code types} is refused. */
    void check(int[] types) {
        int refused = 0;
        StringBuilder which = new StringBuilder();
        for (int type : types) {
            if (refuses(type)) {
                if (refused++ < 4) {
                    which.append(which.isEmpty() ? "" : ", ").append(type);
                }
            }
        }
        if (refused > 0) {
            throw new GraphNotRelaunchableException("the captured graph holds " + refused + " node(s) of type "
                    + which + (refused > 4 ? ", ..." : "")
                    + (zeroBased()
                            ? " (memory allocation/free nodes: stream-ordered hipMallocAsync/hipFreeAsync inside the capture)"
                            : " (not a node type of HIP " + HipNative.versionText(runtimeVersion)
                                    + ": a memory node the runtime " + "cannot name)")
                    + "; such a graph cannot be relaunched safely: allocate before beginCapture() (during the "
                    + "warm-up) instead");
        }
    }
}
