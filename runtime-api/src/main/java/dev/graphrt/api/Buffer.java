package dev.graphrt.api;

/**
 * Device memory handed out by a stream. Closing is cheap and never blocks: the core frees the storage
 * once a fence shows the stream has finished with it, and never while a graph that touched it lives.
 * Closing twice is a no-op.
 */
public interface Buffer extends AutoCloseable {
    /** Bytes requested at allocation. */
    long byteSize();

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    @Override
    void close();
}
