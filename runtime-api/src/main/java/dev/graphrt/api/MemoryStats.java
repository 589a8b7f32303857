package dev.graphrt.api;

import java.util.Map;

/**
 * A snapshot of a runtime's device memory as the core's pools see it.
 *
 * @param reservedBytes         bytes held from the device by all pools
 * @param inUseBytes            bytes of slices currently handed out to live buffers, cache entries or graphs
 * @param persistentFreeBytes   free bytes in the persistent (capture) pool
 * @param pinnedBytes           bytes pinned by live graphs (sum of {@code pinnedPerGraph})
 * @param pinnedPerGraph        graph id to pinned bytes
 * @param retainedByGraphsBytes bytes of the buffers live graphs retain (each buffer once, including buffers the
 *                              user closed: their storage is freed when the last graph using them closes)
 * @param sharedPerPool         graph pool id to the bytes of the intermediates its graphs share (each once): what
 *                              the pool's graphs reserve for their temporaries together, held while a graph uses it
 */
public record MemoryStats(
        long reservedBytes,
        long inUseBytes,
        long persistentFreeBytes,
        long pinnedBytes,
        Map<Long, Long> pinnedPerGraph,
        long retainedByGraphsBytes,
        Map<Long, Long> sharedPerPool) {
    public MemoryStats {
        pinnedPerGraph = Map.copyOf(pinnedPerGraph);
        sharedPerPool = Map.copyOf(sharedPerPool);
    }

    /** Without pools. */
    public MemoryStats(
            long reservedBytes,
            long inUseBytes,
            long persistentFreeBytes,
            long pinnedBytes,
            Map<Long, Long> pinnedPerGraph,
            long retainedByGraphsBytes) {
        this(
                reservedBytes,
                inUseBytes,
                persistentFreeBytes,
                pinnedBytes,
                pinnedPerGraph,
                retainedByGraphsBytes,
                Map.of());
    }
}
