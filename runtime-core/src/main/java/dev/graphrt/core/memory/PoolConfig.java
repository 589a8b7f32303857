package dev.graphrt.core.memory;

/**
 * Geometry and budget of the pools: the dynamic pool's page size and largest pooled size class, the backend's
 * alignment (every slice offset and capacity is a multiple of it), how many free exact-fit bytes the pools
 * may keep ({@code reserveBytes}; beyond it unused allocations go back to the device), and whether the device
 * may be called to free memory while a capture window is open (not on hardware-graph backends: a driver call
 * there could invalidate the capture).
 */
public record PoolConfig(
        long pageBytes, long maxPooledBytes, long alignment, long reserveBytes, boolean freesDuringCapture) {
    public PoolConfig {
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, was " + alignment);
        }
        if (pageBytes < alignment || maxPooledBytes > pageBytes) {
            throw new IllegalArgumentException("pageBytes " + pageBytes + " / maxPooledBytes " + maxPooledBytes
                    + " do not fit alignment " + alignment);
        }
        if (reserveBytes < 0) {
            throw new IllegalArgumentException("reserveBytes must be >= 0, was " + reserveBytes);
        }
    }

    /** No budget (the pools keep every free allocation) and frees allowed at any time: for tests of one rule. */
    public PoolConfig(long pageBytes, long maxPooledBytes, long alignment) {
        this(pageBytes, maxPooledBytes, alignment, Long.MAX_VALUE, true);
    }

    long align(long bytes) {
        return (bytes + alignment - 1) & -alignment;
    }
}
