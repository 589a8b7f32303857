package dev.graphrt.api;

/**
 * A block's threads in three dimensions, as a kernel fixes it at compile time ({@link Kernel#requiredBlock()}).
 *
 * @param x threads in X
 * @param y threads in Y
 * @param z threads in Z
 */
public record BlockShape(int x, int y, int z) {
    public BlockShape {
        if (x <= 0 || y <= 0 || z <= 0) {
            throw new IllegalArgumentException(
                    "a block shape is positive in every dimension, was " + x + "x" + y + "x" + z);
        }
    }

    /** Whether {@code dims} launches blocks of exactly this shape. */
    public boolean matches(LaunchDims dims) {
        return dims.blockX() == x && dims.blockY() == y && dims.blockZ() == z;
    }

    @Override
    public String toString() {
        return x + "x" + y + "x" + z;
    }
}
