package dev.graphrt.api;

/** The device could not provide the requested bytes, even after the core returned its free slices. */
public final class DeviceOutOfMemoryException extends GraphRTException {
    private final long requestedBytes;

    public DeviceOutOfMemoryException(String message, long requestedBytes) {
        super(message);
        this.requestedBytes = requestedBytes;
    }

    public DeviceOutOfMemoryException(String message, long requestedBytes, Throwable cause) {
        super(message, cause);
        this.requestedBytes = requestedBytes;
    }

    public long requestedBytes() {
        return requestedBytes;
    }
}
