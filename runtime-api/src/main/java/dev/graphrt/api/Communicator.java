package dev.graphrt.api;

/**
 * One rank of a group of GPUs (or cpu runtimes) that reduce and exchange buffers together: NCCL's communicator on
 * cuda, RCCL's on hip, threads on cpu. Every operation is enqueued on {@link #stream()} in its order, like a launch:
 * it returns at once, holds its buffers until it completed (closing them right after is safe), and while the stream
 * records a capture it is recorded, so a captured step that all-reduces replays with its graph. Every rank must call
 * the same operations in the same order, with buffers of the same sizes, as NCCL requires; a rank that never comes
 * makes the others' work fail once the runtime's wait timeout has passed (cpu) or wait (NCCL).
 *
 * <p>Buffers belong to the stream's runtime; {@code send} and {@code recv} may be the same buffer (in place). Their
 * byte sizes are whole multiples of the element size. Bad arguments are refused naming them, before anything is
 * enqueued. A closed communicator refuses every operation; a graph that recorded one keeps it alive (the native
 * communicator is destroyed once the last such graph closed), as it keeps its buffers.
 */
public interface Communicator extends AutoCloseable {
    /** This rank, from 0. */
    int rank();

    /** How many ranks the group has. */
    int size();

    /** The stream this rank's operations are enqueued on. */
    GpuStream stream();

    /**
     * Every rank's {@code recv} gets the element-wise {@code op} of all ranks' {@code send}: {@code send.byteSize()}
     * bytes of {@code type}; {@code recv} holds at least as many.
     */
    void allReduce(Buffer send, Buffer recv, ReduceOp op, ElementType type);

    /**
     * Every rank's {@code recv} gets all ranks' {@code send}, rank 0's first: {@code recv} holds at least
     * {@code size() * send.byteSize()} bytes.
     */
    void allGather(Buffer send, Buffer recv, ElementType type);

    /**
     * The element-wise {@code op} of all ranks' {@code send}, of which rank {@code r} gets the {@code r}-th part in
     * {@code recv}: {@code send} holds {@code size()} parts of {@code recv.byteSize()} bytes each.
     */
    void reduceScatter(Buffer send, Buffer recv, ReduceOp op, ElementType type);

    /**
     * Every rank's {@code recv} gets rank {@code root}'s {@code send} ({@code send.byteSize()} bytes); {@code send}
     * is read only on the root.
     */
    void broadcast(Buffer send, Buffer recv, int root, ElementType type);

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    /**
     * Refuses further operations; the native communicator goes once the stream's work and every graph that recorded
     * an operation of it let go. Closing twice is a no-op.
     */
    @Override
    void close();
}
