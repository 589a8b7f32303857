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
 */
public record MemoryStats(long reservedBytes, long inUseBytes, long persistentFreeBytes, long pinnedBytes,
                          Map<Long, Long> pinnedPerGraph, long retainedByGraphsBytes) {
    public MemoryStats {
        pinnedPerGraph = Map.copyOf(pinnedPerGraph);
    }
}
