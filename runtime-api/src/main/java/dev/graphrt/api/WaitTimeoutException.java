package dev.graphrt.api;

import java.time.Duration;

/**
 * A bounded wait ran out: the device did not finish the work the core waited for within
 * {@link RuntimeOptions#waitTimeout()}. GraphRT never waits without a bound, so a stuck fence or a hung
 * kernel becomes this error instead of a hang. The message names the stream and what was awaited. The
 * memory that work still uses stays held (never handed to another buffer); {@code close()} still completes.
 */
public final class WaitTimeoutException extends GraphRTException {
    private final Duration timeout;

    public WaitTimeoutException(String message, Duration timeout) {
        super(message);
        this.timeout = timeout;
    }

    /** The bound that expired. */
    public Duration timeout() {
        return timeout;
    }
}
