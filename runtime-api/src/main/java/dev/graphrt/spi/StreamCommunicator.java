package dev.graphrt.spi;

/**
 * A communicator whose operations are calls on its stream (NCCL, RCCL): outside a capture they run in stream order;
 * while a {@link DriverCapture} is open the driver records them into the graph. A software-graph backend cannot
 * record such a call, so the core rejects it inside a capture.
 */
public non-sealed interface StreamCommunicator extends BackendCommunicator {
    /** Enqueues {@code call} on this rank's stream; throws the backend's {@code GraphRTException} on failure. */
    void enqueue(CollectiveCall call);
}
