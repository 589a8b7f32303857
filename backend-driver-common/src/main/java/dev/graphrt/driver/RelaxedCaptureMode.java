package dev.graphrt.driver;

import java.util.function.Supplier;

/**
 * Runs an action with the calling thread's stream-capture mode exchanged to RELAXED, then restores it
 * ({@code cuThreadExchangeStreamCaptureMode}, {@code hipThreadExchangeStreamCaptureMode}; see
 * {@link DriverCalls#withRelaxedCaptureMode}): a host allocation, module load or synchronous copy made this way does
 * not invalidate a GLOBAL or THREAD_LOCAL capture in progress. A backend passes its own as a method reference.
 */
@FunctionalInterface
public interface RelaxedCaptureMode {
    /** {@code action}'s result, computed under a RELAXED exchange. */
    <T> T run(Supplier<T> action);
}
