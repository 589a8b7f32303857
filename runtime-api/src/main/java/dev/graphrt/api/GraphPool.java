package dev.graphrt.api;

/**
 * Memory that several graphs of one stream share (graphs of different shapes, such as a {@link GraphCache}'s): a
 * temporary that a graph of the pool allocated and closed inside its step (an intermediate) may serve as a
 * temporary of the pool's later captures, so N graphs cost about as much as the largest of them rather than the sum.
 *
 * <p>Why it is safe: every graph of a pool is captured on, and so replays on, the one stream the pool belongs to
 * (the stream of its first capture; another is refused, naming the pool), and a stream runs one replay after
 * another. Only temporaries are shared, and the warm-up tells them apart: a buffer the step allocates and closes in
 * its warm-up is a temporary, which the recording may place in an intermediate; a buffer the step keeps open is an
 * output (PyTorch's rule): it belongs to its graph, is never lent to another graph of the pool, and the user may
 * read, write and keep it. The warm-up itself runs in memory of its own, and without a warm-up nothing is shared.
 * A capture that is refused or cancelled leaves no buffer sharing anything: one it left open gets memory of its
 * own. The pool keeps nothing alive itself: each graph holds the intermediates it uses, and memory goes back when
 * the last graph using it is closed.
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
