package dev.graphrt.backend.cpu;

import dev.graphrt.spi.BackendGraph;
import java.util.List;

/** A sealed software graph: its launches resolved once, replayed as one unit of stream work. */
record CpuGraph(List<PreparedLaunch> launches) implements BackendGraph {
    @Override
    public int nodeCount() {
        return launches.size();
    }
}
