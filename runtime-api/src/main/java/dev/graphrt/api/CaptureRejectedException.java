package dev.graphrt.api;

/**
 * An operation that a capture window cannot hold (a host read or sync while recording, a write the
 * backend cannot record, an allocation that would grow a hardware graph's pool, a call from a foreign
 * thread). The message says which operation and why. Whether the capture survives is documented per
 * operation: eager rejections leave it intact, lazy ones make {@code endCapture()} fail.
 */
public final class CaptureRejectedException extends GraphRTException {
    public CaptureRejectedException(String message) {
        super(message);
    }

    public CaptureRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
