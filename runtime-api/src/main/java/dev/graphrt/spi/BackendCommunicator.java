package dev.graphrt.spi;

/**
 * One rank of a communicator, on the backend stream it was made for. It comes in the two kinds a capture comes in,
 * so the core can record it either way: a {@link StreamCommunicator} enqueues on its stream (a driver capture records
 * it, as NCCL's calls are), a {@link LaunchCommunicator} turns a call into a launch the core runs or records in a
 * software graph.
 *
 * <p>The core calls {@link #close()} once, only after every operation it enqueued completed and every graph that
 * recorded one was destroyed.
 */
public sealed interface BackendCommunicator extends AutoCloseable permits StreamCommunicator, LaunchCommunicator {
    int rank();

    int size();

    /** Frees the native communicator. */
    @Override
    void close();
}
