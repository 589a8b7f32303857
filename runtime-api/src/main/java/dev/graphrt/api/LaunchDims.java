package dev.graphrt.api;

/**
 * A launch's grid (blocks/workgroups) and block (threads per block/workgroup size) in three dimensions.
 * The JAVA dialect sees the flattened global id range {@code [0, grid * block)}.
 */
public record LaunchDims(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ) {
    public LaunchDims {
        positive("gridX", gridX);
        positive("gridY", gridY);
        positive("gridZ", gridZ);
        positive("blockX", blockX);
        positive("blockY", blockY);
        positive("blockZ", blockZ);
        if ((long) blockX * blockY * blockZ > 1024) {
            throw new IllegalArgumentException(
                    "block must hold at most 1024 threads, was " + blockX + "x" + blockY + "x" + blockZ);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /** Enough blocks of {@code blockSize} threads to cover {@code elements} invocations in one dimension. */
    public static LaunchDims linear(long elements, int blockSize) {
        if (elements <= 0) {
            throw new IllegalArgumentException("elements must be positive, was " + elements);
        }
        positive("blockSize", blockSize);
        long blocks = (elements + blockSize - 1) / blockSize;
        if (blocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "elements " + elements + " need more than 2^31-1 blocks of " + blockSize);
        }
        return new LaunchDims((int) blocks, 1, 1, blockSize, 1, 1);
    }

    /** Total invocations: grid volume times block volume. */
    public long totalInvocations() {
        return (long) gridX * gridY * gridZ * blockX * blockY * blockZ;
    }
}
