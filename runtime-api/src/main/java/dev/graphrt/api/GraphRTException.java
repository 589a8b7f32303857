package dev.graphrt.api;

/**
 * Root of every error GraphRT raises on purpose. Unchecked, and sealed so that a caller can switch
 * over the whole family: each subtype names one way a GPU program goes wrong, and its message says
 * what to do about it.
 */
public abstract sealed class GraphRTException extends RuntimeException
        permits GraphStateException,
                CaptureRejectedException,
                CaptureInvalidatedException,
                GraphNotRelaunchableException,
                ReplayFailedException,
                UnsupportedCapabilityException,
                BackendUnavailableException,
                DriverException,
                DeviceOutOfMemoryException,
                KernelCompilationException,
                WaitTimeoutException,
                ReleaseFailedException,
                DeviceLostException,
                BufferOverrunException {

    protected GraphRTException(String message) {
        super(message);
    }

    protected GraphRTException(String message, Throwable cause) {
        super(message, cause);
    }
}
