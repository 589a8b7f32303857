package dev.graphrt.core.memory;

/**
 * Geometry of the pools: the dynamic pool's page size and largest pooled size class, and the backend's
 * alignment (every slice offset and capacity is a multiple of it).
 */
public record PoolConfig(long pageBytes, long maxPooledBytes, long alignment) {
    public PoolConfig {
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, was " + alignment);
        }
        if (pageBytes < alignment || maxPooledBytes > pageBytes) {
            throw new IllegalArgumentException("pageBytes " + pageBytes + " / maxPooledBytes " + maxPooledBytes
                    + " do not fit alignment " + alignment);
        }
    }

    long align(long bytes) {
        return (bytes + alignment - 1) & -alignment;
    }
}
