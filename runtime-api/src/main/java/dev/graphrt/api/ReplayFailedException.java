package dev.graphrt.api;

/**
 * A replay failed on the device. Replays are asynchronous, so this surfaces at the next sync or read on
 * the stream and names the graph (or graphs) replayed since the last successful sync.
 */
public final class ReplayFailedException extends GraphRTException {
    public ReplayFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
