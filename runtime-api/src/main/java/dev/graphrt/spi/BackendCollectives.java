package dev.graphrt.spi;

import java.time.Duration;
import java.util.List;

/**
 * {@code COLLECTIVES}: how a backend makes communicators ({@link Backend#collectives()}). The core has checked every
 * argument: the streams are this backend's, one per backend instance (device), and the ranks fit.
 */
public interface BackendCollectives {
    /** A fresh id for {@link #join} (NCCL's {@code ncclGetUniqueId}). */
    byte[] newId();

    /**
     * One communicator per stream, rank {@code i} on {@code streams.get(i)}, each stream of another instance of this
     * backend in this process (NCCL: one id, every rank initialised inside one group). Ranks that wait for each
     * other later wait at most {@code timeout} where the backend bounds the wait itself.
     */
    List<BackendCommunicator> open(List<BackendStream> streams, Duration timeout);

    /**
     * Rank {@code rank} of {@code size} on {@code stream}; returns once every rank joined with {@code id}, waiting at
     * most {@code timeout} where the backend bounds the wait itself.
     */
    BackendCommunicator join(byte[] id, int rank, int size, BackendStream stream, Duration timeout);

    /** Runs {@code body}, whose operations of several ranks start together (NCCL's group call). */
    default void group(Runnable body) {
        body.run();
    }
}
