package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.core.memory.HoldCount;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.BackendCommunicator;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One rank's communicator as the user holds it: a façade over its stream's {@link StreamCollectives}, and a resource
 * held like a buffer (the user's handle, every operation in flight and every graph that recorded one), so the
 * backend's communicator is closed only when the last of them let go.
 */
final class CoreCommunicator implements Communicator, Retainable {

    private final CoreStream stream;
    private final BackendCommunicator backend;
    private final Communicators registry;
    private final HoldCount holds = new HoldCount();
    private final AtomicBoolean closed = new AtomicBoolean();

    CoreCommunicator(CoreStream stream, BackendCommunicator backend, Communicators registry) {
        this.stream = stream;
        this.backend = backend;
        this.registry = registry;
    }

    BackendCommunicator backend() {
        return backend;
    }

    @Override
    public int rank() {
        return backend.rank();
    }

    @Override
    public int size() {
        return backend.size();
    }

    @Override
    public GpuStream stream() {
        return stream;
    }

    @Override
    public void allReduce(Buffer send, Buffer recv, ReduceOp op, ElementType type) {
        stream.collectives().allReduce(this, send, recv, op, type);
    }

    @Override
    public void allGather(Buffer send, Buffer recv, ElementType type) {
        stream.collectives().allGather(this, send, recv, type);
    }

    @Override
    public void reduceScatter(Buffer send, Buffer recv, ReduceOp op, ElementType type) {
        stream.collectives().reduceScatter(this, send, recv, op, type);
    }

    @Override
    public void broadcast(Buffer send, Buffer recv, int root, ElementType type) {
        stream.collectives().broadcast(this, send, recv, root, type);
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            registry.remove(this);
            release();
        }
    }

    // ---- held like a buffer -----------------------------------------------------------------------------------

    @Override
    public boolean retain() {
        return holds.retain();
    }

    /**
     * The last hold frees the backend's communicator, and its failure goes to whoever let that hold go: the user's
     * {@link #close()}, or the stream's deferred releases (a graph destroyed, work finished), which report it at the
     * stream's next {@code synchronize()} or {@code close()} as a {@code ReleaseFailedException} naming this.
     */
    @Override
    public void release() {
        if (holds.release(this)) {
            backend.close();
        }
    }

    @Override
    public String releaseName() {
        return this + " (close)";
    }

    @Override
    public long retainedBytes() {
        return 0;
    }

    @Override
    public String toString() {
        return "communicator rank " + backend.rank() + " of " + backend.size() + " on stream #" + stream.id() + " ("
                + stream.collectives().backendName() + ")";
    }
}
