package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A rebind a backend makes in place retires the old window without a fence of its own (issue 29): the buffer it
 * let go still outlives the replays enqueued before it, and what both windows hold keeps exactly one graph hold.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class RebindRetirementTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);

    private final FakeBackend backend = new FakeBackend(GraphKind.HARDWARE, EnumSet.of(Capability.GRAPH_UPDATE));
    private final CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
    private final GpuStream stream = runtime.openStream();
    private final Kernel kernel = runtime.compile(NOOP);

    @Test
    void a_rebind_in_place_records_no_fence_and_keeps_one_graph_hold_on_what_both_windows_use() {
        Buffer from = stream.upload(new float[] {1, 2, 3});
        Buffer to = stream.upload(new float[] {4, 5, 6});
        Buffer kept = stream.upload(new float[] {7, 8, 9});
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(from, kept)));
        stream.synchronize();
        int keptHolds = ((CoreBuffer) kept).holdCount();
        int fences = backend.fences.get();

        assertThat(graph.rebind(from, to)).isEqualTo(1);

        assertThat(backend.fences.get()).as("no fence of the rebind's own").isEqualTo(fences);
        assertThat(((CoreBuffer) kept).holdCount())
                .as("the user's and the graph's one")
                .isEqualTo(keptHolds);
        assertThat(((CoreBuffer) to).holdCount())
                .as("the user's and the graph's")
                .isEqualTo(2);
        stream.synchronize();
        assertThat(((CoreBuffer) from).holdCount())
                .as("the graph let it go after the work before")
                .isEqualTo(1);

        graph.close();
        stream.synchronize();
        assertThat(((CoreBuffer) kept).holdCount()).isEqualTo(1);
        assertThat(((CoreBuffer) to).holdCount()).isEqualTo(1);
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void the_rebound_buffer_closed_at_once_lives_until_the_replays_before_the_rebind_are_done() {
        Buffer from = stream.upload(new float[] {1, 2, 3});
        Buffer to = stream.upload(new float[] {4, 5, 6});
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(from)));
        stream.synchronize();
        backend.fencesComplete = false;
        graph.replay();

        graph.rebind(from, to);
        from.close();
        stream.flush();

        assertThat(((CoreBuffer) from).alive())
                .as("the replay before the rebind may still read it")
                .isTrue();
        assertThat(backend.fences.get())
                .as("its close made the next flush point fence it")
                .isPositive();

        backend.fencesComplete = true;
        stream.flush();
        assertThat(((CoreBuffer) from).alive())
                .as("let go once that work is done")
                .isFalse();
        assertThat(((CoreBuffer) to).alive())
                .as("the graph still holds the new one")
                .isTrue();
        graph.close();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }
}
