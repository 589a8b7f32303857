package dev.graphrt.api;

import java.util.List;

/**
 * Where communicators come from ({@link GraphRuntime#collectives()}, {@link Capability#COLLECTIVES}): the GPUs of
 * one process at once ({@link #open}), or one rank per process ({@link #join}) with an id passed between processes.
 * All ranks are streams of one backend, one runtime (device) per rank.
 */
public interface Collectives {
    /** A fresh id for {@link #join}, made by one process and passed to the others. */
    CommunicatorId newId();

    /**
     * One communicator per stream, rank {@code i} on {@code streams.get(i)}: the devices of this process, each
     * stream of another runtime of this backend. Refused naming the stream when one is of another backend, closed,
     * or of a runtime another stream in the list already has.
     */
    List<Communicator> open(List<GpuStream> streams);

    /**
     * This process's rank {@code rank} of {@code size}, on {@code stream} (a stream of this runtime). Returns once
     * every rank joined with the same {@code id} (bounded by the runtime's wait timeout on cpu; NCCL waits for its
     * peers itself).
     */
    Communicator join(CommunicatorId id, int rank, int size, GpuStream stream);

    /**
     * Runs {@code body}, whose operations on communicators of several ranks of this process start together: NCCL's
     * group call, which one thread that drives several GPUs needs so that no rank's operation waits for a rank that
     * is issued after it. The cpu backend needs none: its ranks meet on their streams' own threads.
     */
    void group(Runnable body);
}
