package dev.graphrt.driver;

import dev.graphrt.spi.CollectiveCall;
import dev.graphrt.spi.StreamCommunicator;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One NCCL (or RCCL) rank on a {@link DriverStream}: each operation is the library's call on the stream, so outside
 * a capture it runs in stream order and inside one the driver records it into the graph, as NCCL supports. The
 * core has checked the sizes and holds this communicator for every graph that recorded it; {@link #close()} is
 * {@code ncclCommDestroy}, called once, after that.
 */
final class DriverCommunicator implements StreamCommunicator {
    private final CollectiveLibrary library;
    private final DriverStream stream;
    private final MemorySegment comm;
    private final int rank;
    private final int size;
    private boolean closed;

    DriverCommunicator(CollectiveLibrary library, DriverStream stream, MemorySegment comm, int rank, int size) {
        this.library = Objects.requireNonNull(library, "library");
        this.stream = Objects.requireNonNull(stream, "stream");
        this.comm = Objects.requireNonNull(comm, "comm");
        this.rank = rank;
        this.size = size;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void enqueue(CollectiveCall call) {
        if (closed) {
            throw new IllegalStateException("rank " + rank + " of " + size + " on " + stream + " is closed");
        }
        MemorySegment handle = stream.currentHandle();
        String backend = stream.backendName();
        long send = DriverAllocation.address(call.send(), backend);
        long recv = DriverAllocation.address(call.recv(), backend);
        switch (call) {
            case CollectiveCall.AllReduce r -> library.allReduce(send, recv, r.count(), r.type(), r.op(), comm, handle);
            case CollectiveCall.AllGather g -> library.allGather(send, recv, g.count(), g.type(), comm, handle);
            case CollectiveCall.ReduceScatter r ->
                library.reduceScatter(send, recv, r.count(), r.type(), r.op(), comm, handle);
            case CollectiveCall.Broadcast b ->
                library.broadcast(send, recv, b.count(), b.type(), b.root(), comm, handle);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stream.makeCurrent();
        library.destroy(comm);
    }

    @Override
    public String toString() {
        return "DriverCommunicator[rank " + rank + " of " + size + ", " + library.origin() + "]";
    }
}
