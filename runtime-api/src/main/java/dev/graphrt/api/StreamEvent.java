package dev.graphrt.api;

/**
 * A point in one stream's work: everything enqueued on that stream before {@link GpuStream#record()}. Another
 * stream of the same runtime can wait for it on the device ({@link GpuStream#waitFor}), so work on two streams
 * is ordered without the host waiting; the host can ask or wait too. An event outlives nothing: once its stream
 * is closed, its work is done and the event is complete.
 */
public interface StreamEvent {
    /** The id of the stream it was recorded on. */
    long streamId();

    /**
     * Whether the work before the event finished; never blocks. Refused (a {@link CaptureRejectedException}) where a
     * capture of this runtime forbids device queries from this thread, as a synchronize would be.
     */
    boolean isComplete();

    /**
     * Waits, at most the runtime's wait timeout ({@link WaitTimeoutException} then), for the work before the
     * event, and reports nothing about it: failures of that work surface on its own stream. Refused where a
     * capture forbids it, as {@link #isComplete()} is.
     */
    void await();
}
