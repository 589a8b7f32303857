package dev.graphrt.api;

/**
 * Memory that several graphs of one stream share (graphs of different shapes, such as a {@link GraphCache}'s): a
 * temporary that a graph of the pool allocated and closed inside its step (an intermediate) may serve as a
 * temporary of the pool's later captures, so N graphs cost about as much as the largest of them rather than the sum.
 *
 * <p>Why it is safe: every graph of a pool is captured on, and so replays on, the one stream the pool belongs to
 * (the stream of its first capture; another is refused, naming the pool), and a stream runs one replay after
 * another. Only intermediates are shared: a buffer still open when the capture ends (an output the user kept) is
 * never given to another graph, nor are info buffers. So inputs and outputs that must outlive a replay are
 * allocated outside the step or kept open. The pool keeps nothing alive itself: each graph holds the intermediates
 * it uses, and memory goes back when the last graph using it is closed.
 *
 * <p>Closing the pool refuses later captures into it; its graphs are unaffected.
 */
public interface GraphPool extends AutoCloseable {
    /** The pool's id within its runtime. */
    long id();

    boolean isClosed();

    @Override
    void close();
}
