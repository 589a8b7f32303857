package dev.graphrt.spi;

/**
 * A backend could not apply a new recording to a live graph ({@link DriverCapture#closeInto}); the graph
 * is unchanged. The core turns it into a rejected {@code UpdateResult}, so the user gets a result, not an error.
 */
public final class UpdateRejectedException extends RuntimeException {
    private final int nodeIndex;

    /**
     * @param nodeIndex the first launch (in recording order) the driver named, or -1
     * @param reason    what the driver said, in words
     */
    public UpdateRejectedException(int nodeIndex, String reason) {
        super(reason);
        this.nodeIndex = nodeIndex;
    }

    public int nodeIndex() {
        return nodeIndex;
    }
}
