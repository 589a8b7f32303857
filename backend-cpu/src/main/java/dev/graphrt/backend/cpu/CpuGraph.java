package dev.graphrt.backend.cpu;

import dev.graphrt.spi.BackendGraph;
import java.util.List;

/**
 * A sealed software graph: its launches resolved once, replayed as one unit of stream work; one that holds a
 * collective ({@code meetsOtherRanks}) is handed to the worker at once, since other ranks wait for it.
 */
record CpuGraph(List<PreparedLaunch> launches, boolean meetsOtherRanks) implements BackendGraph {
    @Override
    public int nodeCount() {
        return launches.size();
    }
}
