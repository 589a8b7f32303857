package dev.graphrt.core.runtime;

import dev.graphrt.api.Collectives;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.CommunicatorId;
import dev.graphrt.api.GpuStream;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A runtime's collectives: checks what the user asks (every rank a GraphRT stream of this backend, one per runtime,
 * open and not recording; ranks that fit) before the backend sees any of it, then wraps what the backend made.
 */
final class CoreCollectives implements Collectives {
    private final String backendName;
    private final BackendCollectives backend;
    private final RuntimeScope scope;
    private final Duration waitTimeout;

    CoreCollectives(String backendName, BackendCollectives backend, RuntimeScope scope, Duration waitTimeout) {
        this.backendName = backendName;
        this.backend = backend;
        this.scope = scope;
        this.waitTimeout = waitTimeout;
    }

    @Override
    public CommunicatorId newId() {
        checkOpen("newId");
        return CommunicatorId.of(backend.newId());
    }

    @Override
    public List<Communicator> open(List<GpuStream> streams) {
        Objects.requireNonNull(streams, "streams");
        checkOpen("open");
        if (streams.isEmpty()) {
            throw new IllegalArgumentException("streams: a communicator needs at least one rank");
        }
        List<CoreStream> ranks = new ArrayList<>(streams.size());
        Map<RuntimeScope, Integer> runtimes = new IdentityHashMap<>();
        for (int i = 0; i < streams.size(); i++) {
            String argument = "streams[" + i + "]";
            CoreStream stream = rank(streams.get(i), argument);
            Integer earlier = runtimes.putIfAbsent(stream.collectives().scope(), i);
            if (earlier != null) {
                throw new IllegalArgumentException(argument + ": stream #" + stream.id() + " is of the same runtime ("
                        + stream.collectives().scope().device() + ") as streams[" + earlier + "]; a communicator has "
                        + "one rank per runtime (device)");
            }
            stream.collectives().checkSetup("open", argument);
            ranks.add(stream);
        }
        List<BackendStream> backendStreams =
                ranks.stream().map(s -> s.collectives().backendStream()).toList();
        List<BackendCommunicator> made = backend.open(backendStreams, waitTimeout);
        if (made.size() != ranks.size()) {
            made.forEach(BackendCommunicator::close);
            throw new IllegalStateException("the " + backendName + " backend made " + made.size()
                    + " communicator(s) for " + ranks.size() + " stream(s)");
        }
        List<Communicator> communicators = new ArrayList<>(made.size());
        for (int i = 0; i < made.size(); i++) {
            communicators.add(ranks.get(i).collectives().adopt(ranks.get(i), made.get(i)));
        }
        return List.copyOf(communicators);
    }

    @Override
    public Communicator join(CommunicatorId id, int rank, int size, GpuStream stream) {
        Objects.requireNonNull(id, "id");
        checkOpen("join");
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, was " + size);
        }
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank must be from 0 to " + (size - 1) + ", was " + rank);
        }
        CoreStream own = rank(stream, "stream");
        if (own.collectives().scope() != scope) {
            throw new IllegalArgumentException("stream: stream #" + own.id() + " belongs to another runtime ("
                    + own.collectives().scope().device() + "), not to this one (" + scope.device() + ")");
        }
        own.collectives().checkSetup("join", "stream");
        BackendCommunicator made =
                backend.join(id.bytes(), rank, size, own.collectives().backendStream(), waitTimeout);
        return own.collectives().adopt(own, made);
    }

    @Override
    public void group(Runnable body) {
        Objects.requireNonNull(body, "body");
        checkOpen("group");
        backend.group(body);
    }

    /** {@code stream} as a rank: a stream GraphRT opened, of this backend. */
    private CoreStream rank(GpuStream stream, String argument) {
        Objects.requireNonNull(stream, argument);
        if (!(stream instanceof CoreStream core)) {
            throw new IllegalArgumentException(argument + ": " + stream + " is not a stream a GraphRT runtime opened");
        }
        String other = core.collectives().backendName();
        if (!other.equals(backendName)) {
            throw new IllegalArgumentException(argument + ": stream #" + core.id() + " is a stream of the " + other
                    + " backend, not of " + backendName + ": every rank of a communicator is a stream of one backend");
        }
        return core;
    }

    private void checkOpen(String operation) {
        if (scope.isClosed()) {
            throw new IllegalStateException(operation + ": the " + backendName + " runtime is closed");
        }
    }
}
