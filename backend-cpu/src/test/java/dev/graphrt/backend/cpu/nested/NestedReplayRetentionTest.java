package dev.graphrt.backend.cpu.nested;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.runtime.CoreRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A graph replayed inside another capture becomes part of the parent: the parent keeps the child, the child's
 * buffers and what the child pins alive for as long as the parent lives, whatever the user closes first.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NestedReplayRetentionTest {
    private static final int N = 1061;
    private static final long BYTES = N * 4L;
    private static final LaunchDims DIMS = LaunchDims.linear(N, 256);

    private final CoreRuntime runtime =
            NestedGraphsBackend.openRuntime(RuntimeOptions.defaults().waitTimeout(Duration.ofSeconds(10)));
    private final GpuStream stream = runtime.openStream();
    private final Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
    private final Kernel mulTwo = runtime.compile(KitKernels.MUL_TWO);

    @AfterEach
    void close() {
        runtime.close();
    }

    private static void launch(GpuStream s, Kernel kernel, Buffer src, Buffer dst) {
        s.launch(kernel, DIMS, KernelArgs.of(src, dst).info(N));
    }

    private static int[] constant(int value) {
        int[] x = new int[N];
        Arrays.fill(x, value);
        return x;
    }

    @Test
    void a_replay_inside_a_capture_is_recorded_as_part_of_the_parent_and_not_run_while_recording() {
        int[] x = KitKernels.pattern(N, 3);
        Buffer in = stream.upload(x);
        Buffer mid = stream.upload(constant(-1));
        Buffer out = stream.upload(constant(-1));
        Graph child = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, mid));
        stream.write(mid, constant(-1));

        Graph parent = stream.capture(CaptureOptions.defaults(), s -> {
            child.replay();
            launch(s, mulTwo, mid, out);
        });
        stream.write(mid, constant(-1));
        stream.write(out, constant(-1));
        stream.synchronize();
        assertThat(stream.readInts(mid)).as("nothing ran while recording").containsOnly(-1);

        parent.replay();
        assertThat(stream.readInts(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        assertThat(parent.info().nodeCount()).isEqualTo(2);
        assertThat(parent.toDot()).contains("add_one").contains("mul_two");
    }

    @Test
    void a_parent_keeps_a_closed_child_and_its_closed_buffers_alive_and_frees_them_when_it_closes() {
        int[] x = KitKernels.pattern(N, 4);
        Buffer in = stream.upload(x);
        Buffer mid = stream.allocate(BYTES);
        Buffer out = stream.allocate(BYTES);
        Graph child = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, mid));
        Graph parent = stream.capture(CaptureOptions.defaults(), s -> {
            child.replay();
            launch(s, mulTwo, mid, out);
        });
        child.close();
        in.close();
        mid.close();
        stream.synchronize();
        assertThat(child.isClosed()).isTrue();
        assertThat(runtime.memoryStats().retainedByGraphsBytes())
                .as("the parent retains in, mid and out")
                .isGreaterThanOrEqualTo(3 * BYTES);

        List<Buffer> later = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            later.add(stream.upload(constant(500 + i)));
        }
        parent.replay();
        assertThat(stream.readInts(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        for (int i = 0; i < later.size(); i++) {
            assertThat(stream.readInts(later.get(i)))
                    .as("buffer %d allocated after the closes", i)
                    .isEqualTo(constant(500 + i));
        }

        parent.close();
        out.close();
        later.forEach(Buffer::close);
        stream.synchronize();
        assertThat(runtime.memoryStats().retainedByGraphsBytes())
                .as("nothing retained once the parent closed")
                .isZero();
        assertThat(runtime.memoryStats().pinnedBytes())
                .as("the child's pins went with the parent")
                .isZero();
    }

    @Test
    void a_closed_child_cannot_be_replayed_on_its_own_while_its_parent_still_replays() {
        int[] x = KitKernels.pattern(N, 5);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(BYTES);
        Graph child = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, out));
        Graph parent = stream.capture(CaptureOptions.defaults(), s -> child.replay());
        child.close();
        org.assertj.core.api.Assertions.assertThatThrownBy(child::replay).hasMessageContaining("closed");
        parent.replay();
        assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
    }
}
