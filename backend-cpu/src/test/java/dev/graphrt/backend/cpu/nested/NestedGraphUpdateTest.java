package dev.graphrt.backend.cpu.nested;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A graph that a live parent replays as a child keeps its recording: the parent's copy of it uses its memory, so an
 * update or a rebind of the child would free what the parent still runs on.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NestedGraphUpdateTest {
    private static final int N = 1061;

    @Test
    void a_child_of_a_live_parent_refuses_update_and_rebind_and_accepts_them_once_the_parent_is_closed() {
        try (GraphRuntime runtime = NestedGraphsBackend.openRuntime(RuntimeOptions.defaults());
                GpuStream stream = runtime.openStream()) {
            Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
            int[] x = KitKernels.pattern(N, 31);
            Buffer in = stream.upload(x);
            Buffer mid = stream.allocate(N * 4L);
            Buffer other = stream.upload(x);
            LaunchDims dims = LaunchDims.linear(N, 256);
            Graph child = stream.capture(
                    CaptureOptions.defaults(),
                    s -> s.launch(addOne, dims, KernelArgs.of(in, mid).info(N)));
            Graph parent = stream.capture(CaptureOptions.defaults(), s -> s.replay(child));

            assertThatThrownBy(() -> child.update(s ->
                            s.launch(addOne, dims, KernelArgs.of(other, mid).info(N))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("replayed inside another live graph");
            assertThatThrownBy(() -> child.rebind(in, other))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("replayed inside another live graph");
            parent.replay();
            assertThat(stream.readInts(mid)).isEqualTo(KitKernels.addOne(x));

            parent.close();
            stream.synchronize();
            assertThat(child.rebind(in, other)).isEqualTo(1);
            child.replay();
            assertThat(stream.readInts(mid)).isEqualTo(KitKernels.addOne(x));
        }
    }
}
