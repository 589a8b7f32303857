package dev.graphrt.api;

/**
 * Device memory handed out by a stream. Every operation that uses a buffer retains its storage until it is
 * done with it: a graph whose recorded operations touched it, until the graph is closed; work in flight on
 * any stream, until a fence behind that work completes. {@link #close()} ends this handle at once (any later
 * use of it is refused as closed) and never blocks or waits for a stream; the storage goes back to the pool
 * when the last holder lets go. So no replay, launch, copy or other stream can touch memory that another
 * buffer owns, whatever the order of calls. Closing twice, or after the runtime closed, is a no-op.
 */
public interface Buffer extends AutoCloseable {
    /** Bytes requested at allocation. */
    long byteSize();

    /** Whether {@link #close()} was called, or the runtime that made it was closed. */
    boolean isClosed();

    @Override
    void close();
}
