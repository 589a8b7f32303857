package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.CollectiveCall;
import dev.graphrt.spi.LaunchCommunicator;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.StreamCommunicator;
import java.util.Objects;

/**
 * A stream's collectives: each operation of a communicator of this stream checked (its buffers this runtime's, their
 * sizes whole elements that fit), its buffers and its communicator held like a launch's, and run, recorded by the
 * driver, recorded as a launch, or rejected lazily, as {@code OperationPolicy.collective} says. Also what making a
 * communicator needs of the stream.
 */
final class StreamCollectives {
    private final StreamContext c;

    StreamCollectives(StreamContext c) {
        this.c = c;
    }

    // ---- making a communicator -------------------------------------------------------------------------------

    /** The backend's name, which every rank of a communicator shares. */
    String backendName() {
        return c.policy().backend();
    }

    /** Refuses making a communicator on this stream ({@code argument}) when it is closed or records a capture. */
    void checkSetup(String operation, String argument) {
        if (c.self().isClosed()) {
            throw new IllegalArgumentException(argument + ": stream #" + c.id() + " is closed");
        }
        c.host().checkOpen(operation);
        c.policy().checkCollectives(operation);
        c.policy().checkCommunicatorSetup(c.membership().state(), operation, c.id());
    }

    /** The runtime's scope: two ranks on one runtime are refused. */
    RuntimeScope scope() {
        return c.host().scope();
    }

    BackendStream backendStream() {
        return c.backend();
    }

    /** The communicator {@code made} on this stream, kept by the runtime until it is closed. */
    CoreCommunicator adopt(CoreStream stream, BackendCommunicator made) {
        CoreCommunicator communicator =
                new CoreCommunicator(stream, made, c.host().communicators());
        c.host().communicators().add(communicator);
        return communicator;
    }

    // ---- operations --------------------------------------------------------------------------------------------

    void allReduce(CoreCommunicator communicator, Buffer send, Buffer recv, ReduceOp op, ElementType type) {
        Objects.requireNonNull(op, "op");
        Checked in = check(communicator, "allReduce", send, recv, type);
        long count = elements(in.send(), type, "send");
        fits(in.recv(), in.send().byteSize(), "recv", "send's " + in.send().byteSize() + " bytes");
        long bytes = in.send().byteSize();
        run(
                communicator,
                "allReduce",
                in,
                new CollectiveCall.AllReduce(
                        in.send().storage().prefix(bytes), in.recv().storage().prefix(bytes), count, type, op));
    }

    void allGather(CoreCommunicator communicator, Buffer send, Buffer recv, ElementType type) {
        Checked in = check(communicator, "allGather", send, recv, type);
        long count = elements(in.send(), type, "send");
        long bytes = in.send().byteSize();
        long gathered = Math.multiplyExact(bytes, communicator.size());
        fits(in.recv(), gathered, "recv", communicator.size() + " ranks of send's " + bytes + " bytes");
        if (in.send() == in.recv()) {
            throw new IllegalArgumentException(
                    "send and recv: an all-gather's recv is size() times larger than " + "its send; pass two buffers");
        }
        run(
                communicator,
                "allGather",
                in,
                new CollectiveCall.AllGather(
                        in.send().storage().prefix(bytes), in.recv().storage().prefix(gathered), count, type));
    }

    void reduceScatter(CoreCommunicator communicator, Buffer send, Buffer recv, ReduceOp op, ElementType type) {
        Objects.requireNonNull(op, "op");
        Checked in = check(communicator, "reduceScatter", send, recv, type);
        long count = elements(in.recv(), type, "recv");
        long bytes = in.recv().byteSize();
        long scattered = Math.multiplyExact(bytes, communicator.size());
        fits(in.send(), scattered, "send", communicator.size() + " ranks of recv's " + bytes + " bytes");
        if (in.send() == in.recv()) {
            throw new IllegalArgumentException("send and recv: a reduce-scatter's send is size() times larger than "
                    + "its recv; pass two buffers");
        }
        run(
                communicator,
                "reduceScatter",
                in,
                new CollectiveCall.ReduceScatter(
                        in.send().storage().prefix(scattered),
                        in.recv().storage().prefix(bytes),
                        count,
                        type,
                        op));
    }

    void broadcast(CoreCommunicator communicator, Buffer send, Buffer recv, int root, ElementType type) {
        if (root < 0 || root >= communicator.size()) {
            throw new IllegalArgumentException(
                    "root must be a rank from 0 to " + (communicator.size() - 1) + ", was " + root);
        }
        Checked in = check(communicator, "broadcast", send, recv, type);
        long count = elements(in.send(), type, "send");
        long bytes = in.send().byteSize();
        fits(in.recv(), bytes, "recv", "send's " + bytes + " bytes");
        run(
                communicator,
                "broadcast",
                in,
                new CollectiveCall.Broadcast(
                        in.send().storage().prefix(bytes), in.recv().storage().prefix(bytes), count, type, root));
    }

    private record Checked(CoreBuffer send, CoreBuffer recv) {}

    private Checked check(CoreCommunicator communicator, String operation, Buffer send, Buffer recv, ElementType type) {
        Objects.requireNonNull(type, "type");
        c.host().checkOpen(operation);
        if (communicator.isClosed()) {
            throw new IllegalStateException(operation + ": " + communicator + " is closed");
        }
        return new Checked(c.host().checkBuffer(send, "send"), c.host().checkBuffer(recv, "recv"));
    }

    private static long elements(CoreBuffer buffer, ElementType type, String argument) {
        if (buffer.byteSize() % type.bytes() != 0) {
            throw new IllegalArgumentException(argument + ": " + buffer + " holds " + buffer.byteSize()
                    + " bytes, not a whole number of " + type + " elements (" + type.bytes() + " bytes each)");
        }
        return buffer.byteSize() / type.bytes();
    }

    private static void fits(CoreBuffer buffer, long bytes, String argument, String what) {
        if (buffer.byteSize() < bytes) {
            throw new IllegalArgumentException(argument + ": " + buffer + " holds " + buffer.byteSize()
                    + " bytes, fewer than " + what + " (" + bytes + ")");
        }
    }

    /** The call under the stream's lock: holds, then the policy's action. */
    private void run(CoreCommunicator communicator, String operation, Checked in, CollectiveCall call) {
        c.guard().runJoined(operation, communicator, origin -> {
            if (origin != null) {
                c.membership().rejectOnOrigin(origin, operation + " of " + communicator);
                return;
            }
            BackendCommunicator backend = communicator.backend();
            switch (c.policy().collective(c.lifecycle().current(), backend instanceof LaunchCommunicator)) {
                case RUN -> {
                    hold(communicator, in);
                    switch (backend) {
                        case StreamCommunicator enqueued -> enqueued.enqueue(call);
                        case LaunchCommunicator launched -> {
                            RecordedLaunch launch = launched.launch(call);
                            c.backend().launch(launch.kernel(), launch.dims(), launch.bindings());
                        }
                    }
                }
                case RECORD_IN_DRIVER -> {
                    hold(communicator, in);
                    switch (backend) {
                        case StreamCommunicator enqueued -> {
                            enqueued.enqueue(call);
                            // a node the core's recording does not hold: a rebind leaves it, and its buffers, as is
                            c.lifecycle().noteRecordedWrite();
                        }
                        case LaunchCommunicator launched -> {
                            RecordedLaunch launch = launched.launch(call);
                            c.backend().launch(launch.kernel(), launch.dims(), launch.bindings());
                            c.lifecycle().recordLaunch(launch);
                        }
                    }
                }
                case RECORD_IN_CORE -> {
                    hold(communicator, in);
                    c.lifecycle().recordLaunch(((LaunchCommunicator) backend).launch(call));
                }
                case DEFER_REJECTION ->
                    c.lifecycle()
                            .rejectLazily(operation + " of " + communicator + " (the "
                                    + c.policy().backend()
                                    + " backend's software graphs hold launches only, and its communicator "
                                    + "enqueues on the stream: run it before prepare() or between replays)");
            }
            c.membership().countOperation();
        });
    }

    private void hold(CoreCommunicator communicator, Checked in) {
        c.memory().holdResource(communicator, "communicator");
        c.memory().hold(in.send(), "send");
        if (in.recv() != in.send()) {
            c.memory().hold(in.recv(), "recv");
        }
    }
}
