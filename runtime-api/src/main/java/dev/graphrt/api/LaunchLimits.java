package dev.graphrt.api;

/**
 * The largest launch a device takes: blocks per grid dimension, threads per block dimension, threads per block.
 * The backend reads them once when the runtime opens (CUDA and HIP device attributes, WebGPU device limits), and
 * every launch is checked against them at the call, before anything is enqueued or recorded: beyond them a driver
 * refuses the launch with a bare "invalid value" ({@code cuLaunchKernel} 1), or WebGPU reports a validation error
 * of the whole submission later. {@link #UNDECLARED} is for devices listed without being opened; a backend's
 * opened device declares its own (the conformance kit requires it).
 *
 * @param maxGridX           blocks (workgroups) in X
 * @param maxGridY           blocks in Y
 * @param maxGridZ           blocks in Z
 * @param maxBlockX          threads a block in X
 * @param maxBlockY          threads a block in Y
 * @param maxBlockZ          threads a block in Z
 * @param maxThreadsPerBlock threads a block in all
 */
public record LaunchLimits(
        int maxGridX, int maxGridY, int maxGridZ, int maxBlockX, int maxBlockY, int maxBlockZ, int maxThreadsPerBlock) {
    /** No limit is known: nothing is checked beyond what {@link LaunchDims} itself refuses. */
    public static final LaunchLimits UNDECLARED = new LaunchLimits(
            Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE);
    /**
     * The limits of CUDA devices since compute capability 3.0 (grid 2^31-1 x 65,535 x 65,535; block 1,024 x 1,024
     * x 64, 1,024 threads): what a backend without device limits of its own declares, so a launch that runs there
     * also runs on a GPU.
     */
    public static final LaunchLimits PORTABLE =
            new LaunchLimits(Integer.MAX_VALUE, 65_535, 65_535, 1024, 1024, 64, 1024);

    public LaunchLimits {
        positive("maxGridX", maxGridX);
        positive("maxGridY", maxGridY);
        positive("maxGridZ", maxGridZ);
        positive("maxBlockX", maxBlockX);
        positive("maxBlockY", maxBlockY);
        positive("maxBlockZ", maxBlockZ);
        positive("maxThreadsPerBlock", maxThreadsPerBlock);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /**
     * Refuses {@code dims} beyond these limits with an {@code IllegalArgumentException} naming the field, its value
     * and the limit ({@code dims.gridY 70000 exceeds the device's limit of 65535 (maxGridY) on cuda: NVIDIA H200}).
     *
     * @param device named in the message
     */
    public void check(LaunchDims dims, String device) {
        within(dims.gridX(), maxGridX, "gridX", "maxGridX", device);
        within(dims.gridY(), maxGridY, "gridY", "maxGridY", device);
        within(dims.gridZ(), maxGridZ, "gridZ", "maxGridZ", device);
        within(dims.blockX(), maxBlockX, "blockX", "maxBlockX", device);
        within(dims.blockY(), maxBlockY, "blockY", "maxBlockY", device);
        within(dims.blockZ(), maxBlockZ, "blockZ", "maxBlockZ", device);
        long threads = (long) dims.blockX() * dims.blockY() * dims.blockZ();
        if (threads > maxThreadsPerBlock) {
            throw new IllegalArgumentException("dims: a block of " + dims.blockX() + "x" + dims.blockY() + "x"
                    + dims.blockZ() + " = " + threads + " threads exceeds the device's limit of " + maxThreadsPerBlock
                    + " (maxThreadsPerBlock) on " + device);
        }
    }

    private static void within(int value, int limit, String field, String limitName, String device) {
        if (value > limit) {
            throw new IllegalArgumentException("dims." + field + " " + value + " exceeds the device's limit of " + limit
                    + " (" + limitName + ") on " + device);
        }
    }
}
