package dev.graphrt.api;

/**
 * A lifecycle call made in a state that does not allow it. The stream's state is exactly what it was
 * before the call; the message names the call, the current state and the fix.
 */
public final class GraphStateException extends GraphRTException {
    public GraphStateException(String message) {
        super(message);
    }

    public GraphStateException(String message, Throwable cause) {
        super(message, cause);
    }
}
