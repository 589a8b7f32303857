package dev.graphrt.api;

/**
 * The captured window cannot become a graph that is safe to replay many times, for example because an
 * allocation inside it was refused, or the driver recorded memory allocation nodes. Thrown by
 * {@code endCapture()}; the stream is back in NO_CAPTURE and can capture again.
 */
public final class GraphNotRelaunchableException extends GraphRTException {
    public GraphNotRelaunchableException(String message) {
        super(message);
    }

    public GraphNotRelaunchableException(String message, Throwable cause) {
        super(message, cause);
    }
}
