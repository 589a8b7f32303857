package dev.graphrt.api;

/**
 * The driver invalidated a capture (CUDA/HIP codes 900-910). The first driver error is kept as the
 * cause; the stream is back in {@link CaptureState#NO_CAPTURE} and can capture again.
 */
public final class CaptureInvalidatedException extends GraphRTException {
    private final int driverCode;

    public CaptureInvalidatedException(String message, int driverCode, Throwable cause) {
        super(message, cause);
        this.driverCode = driverCode;
    }

    /** The driver's numeric result code that invalidated the capture. */
    public int driverCode() {
        return driverCode;
    }
}
