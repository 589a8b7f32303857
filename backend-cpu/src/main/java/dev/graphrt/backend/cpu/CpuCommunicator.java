package dev.graphrt.backend.cpu;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CollectiveCall;
import dev.graphrt.spi.LaunchCommunicator;
import dev.graphrt.spi.RecordedLaunch;
import java.util.List;
import java.util.OptionalInt;

/**
 * One rank of a cpu communicator: each collective is a launch of a one-invocation Java kernel that meets the other
 * ranks in their {@link CpuClique}. Its buffers are the launch's two bindings (send, recv), so a software graph
 * replays it and a rebind patches it like any launch.
 */
final class CpuCommunicator implements LaunchCommunicator {
    private static final LaunchDims ONE = new LaunchDims(1, 1, 1, 1, 1, 1);

    private final int rank;
    private final CpuClique clique;

    CpuCommunicator(int rank, CpuClique clique) {
        this.rank = rank;
        this.clique = clique;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return clique.size();
    }

    @Override
    public RecordedLaunch launch(CollectiveCall call) {
        String name = "graphrt_cpu_" + call.getClass().getSimpleName();
        String what = name + " of rank " + rank + " of " + clique.size();
        CpuCompiler.CpuKernel kernel = new CpuCompiler.CpuKernel(
                name,
                (args, from, to) -> clique.run(rank, call, args.buffer(0), args.buffer(1), what),
                OptionalInt.of(2),
                true);
        return new RecordedLaunch(kernel, ONE, new Bindings(List.of(call.send(), call.recv()), null, 0));
    }

    @Override
    public void close() {
        // nothing native: the clique goes with its last rank
    }
}
