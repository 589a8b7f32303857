package dev.graphrt.driver;

import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendStream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code COLLECTIVES} of a driver backend, through NCCL or RCCL ({@link CollectiveLibrary}): the ranks of one
 * process are initialised together in one NCCL group; a rank of a communicator spread over processes joins with the
 * id the application passed it.
 *
 * <p>Why a join waits on a thread of its own: {@code ncclCommInitRank} returns only when every rank has joined, and
 * NCCL has no way to abandon a blocking init. The caller waits at most its timeout and is then told which rank did
 * not meet; the thread stays with NCCL, and destroys the communicator should the other ranks come after all. Its
 * communicators are blocking ones: a non-blocking NCCL communicator launches its operations from a thread of NCCL's,
 * which a stream capture must not depend on.
 */
final class DriverCollectives implements BackendCollectives {
    private static final Logger LOG = LoggerFactory.getLogger(DriverCollectives.class);

    private final String backend;
    private final CollectiveLibrary library;
    /** Set once the backend closes (guarded by this). */
    private boolean closed;

    DriverCollectives(String backend, CollectiveLibrary library) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.library = Objects.requireNonNull(library, "library");
    }

    @Override
    public byte[] newId() {
        return library.uniqueId();
    }

    @Override
    public List<BackendCommunicator> open(List<BackendStream> streams, Duration timeout) {
        List<DriverStream> own = streams.stream().map(this::own).toList();
        MemorySegment[] comms = library.initRanks(
                library.uniqueId(), own.size(), rank -> own.get(rank).makeCurrent());
        List<BackendCommunicator> ranks = new ArrayList<>(own.size());
        for (int rank = 0; rank < own.size(); rank++) {
            ranks.add(new DriverCommunicator(library, own.get(rank), comms[rank], rank, own.size()));
        }
        LOG.debug("{}: {} ranks of one process through {}", backend, own.size(), library.origin());
        return ranks;
    }

    @Override
    public BackendCommunicator join(byte[] id, int rank, int size, BackendStream stream, Duration timeout) {
        if (id.length != CollectiveLibrary.UNIQUE_ID_BYTES) {
            throw new IllegalArgumentException("id: " + library.origin() + " takes an id of "
                    + CollectiveLibrary.UNIQUE_ID_BYTES + " bytes (from newId() of this backend), was "
                    + id.length + " bytes");
        }
        DriverStream own = own(stream);
        byte[] copy = id.clone();
        CompletableFuture<MemorySegment> joined = new CompletableFuture<>();
        Thread init = Thread.ofPlatform()
                .daemon()
                .name("graphrt " + backend + " join rank " + rank + " of " + size)
                .unstarted(() -> {
                    try {
                        own.makeCurrent();
                        MemorySegment comm = library.initRank(size, copy, rank);
                        if (!joined.complete(comm)) {
                            destroyLate(own, comm, rank, size); // the caller stopped waiting: nobody else frees it
                        }
                    } catch (RuntimeException | Error e) {
                        joined.completeExceptionally(e);
                    }
                });
        init.start();
        try {
            MemorySegment comm = joined.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return new DriverCommunicator(library, own, comm, rank, size);
        } catch (TimeoutException e) {
            if (joined.completeExceptionally(e)) {
                throw new WaitTimeoutException(
                        "join: rank " + rank + " of " + size + " did not meet the other ranks within " + timeout
                                + " (each must join with the same id, once per rank)",
                        timeout);
            }
            return new DriverCommunicator(library, own, joined.join(), rank, size);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException("join: rank " + rank + " of " + size + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (joined.completeExceptionally(e)) {
                throw new IllegalStateException("join: interrupted while rank " + rank + " of " + size + " waited");
            }
            return new DriverCommunicator(library, own, joined.join(), rank, size);
        }
    }

    /**
     * Frees a communicator whose join the caller gave up on, unless the backend closed meanwhile: then its context
     * is gone, and NCCL must not be called on it (the communicator is left to the process's end, and said so).
     */
    private synchronized void destroyLate(DriverStream own, MemorySegment comm, int rank, int size) {
        if (closed) {
            LOG.warn(
                    "{}: rank {} of {} joined after its caller's wait ended and after the backend closed; its NCCL "
                            + "communicator is left to the process's end",
                    backend,
                    rank,
                    size);
            return;
        }
        own.makeCurrent();
        library.destroy(comm);
    }

    /**
     * The backend is closing: a join still waiting in NCCL no longer frees what it makes. Waits for a late free in
     * progress, so none runs after the backend's context is released.
     */
    synchronized void close() {
        closed = true;
    }

    @Override
    public void group(Runnable body) {
        library.groupStart();
        RuntimeException failure = Failures.attempt(null, body);
        failure = Failures.attempt(failure, library::groupEnd); // a group started is ended, whatever the body did
        if (failure != null) {
            throw failure;
        }
    }

    private DriverStream own(BackendStream stream) {
        if (!(stream instanceof DriverStream driverStream)
                || !driverStream.backendName().equals(backend)) {
            throw new IllegalArgumentException("stream " + stream + " is not a " + backend + " stream");
        }
        return driverStream;
    }
}
