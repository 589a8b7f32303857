package dev.graphrt.backend.cpu;

import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The cpu backend's collectives: the ranks are cpu runtimes of one process, opened together ({@link #open}), meeting on
 * their streams' threads. A cpu rank has no other process to meet, so {@link #join} makes only a communicator of one
 * rank; more are refused, naming {@code open}.
 */
final class CpuCollectives implements BackendCollectives {
    @Override
    public byte[] newId() {
        UUID id = UUID.randomUUID();
        return ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits())
                .array();
    }

    @Override
    public List<BackendCommunicator> open(List<BackendStream> streams, Duration timeout) {
        CpuClique clique = new CpuClique(streams.size(), timeout);
        List<BackendCommunicator> ranks = new ArrayList<>(streams.size());
        for (int rank = 0; rank < streams.size(); rank++) {
            ranks.add(new CpuCommunicator(rank, clique));
        }
        return ranks;
    }

    @Override
    public BackendCommunicator join(byte[] id, int rank, int size, BackendStream stream, Duration timeout) {
        if (size != 1) {
            throw new IllegalArgumentException("size: the cpu backend's ranks are runtimes of one process, which "
                    + "meet through open(List) of their streams; join makes a communicator of one rank only, "
                    + "was asked for " + size);
        }
        return new CpuCommunicator(rank, new CpuClique(1, timeout));
    }
}
