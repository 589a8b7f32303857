package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuReplayTest {
    private static final int CAPACITY = 1000; // elements per buffer
    private static final int LENGTH = 900; // elements the kernel touches, read from the info buffer
    private static final int LAUNCHES = 150;
    private static final int[] CONSTANTS = {12345, -987654};

    private WgpuBackend backend;
    private CompiledKernel step;

    @BeforeAll
    void open() {
        backend = WgpuTestSupport.open();
        step = backend.compiler().compile(WgpuTestSupport.LCG_STEP);
    }

    @AfterAll
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void a_sealed_recording_of_150_ping_pong_launches_replays_to_the_simulated_result() {
        long bytes = CAPACITY * 4L;
        DeviceAllocation block = backend.memory().allocate(2 * WgpuMemory.roundUp(bytes, 256) + 512);
        long second = WgpuMemory.roundUp(bytes, 256);
        DeviceSlice a = new DeviceSlice(block, 0, bytes);
        DeviceSlice b = new DeviceSlice(block, second, bytes);
        DeviceSlice info0 = new DeviceSlice(block, 2 * second, 8);
        DeviceSlice info1 = new DeviceSlice(block, 2 * second + 256, 8);
        int[] initialA = new int[CAPACITY];
        int[] initialB = new int[CAPACITY];
        for (int i = 0; i < CAPACITY; i++) {
            initialA[i] = i * 7919 - 500_000;
            initialB[i] = 0xDEADBEEF; // poison: never written beyond LENGTH
        }
        List<RecordedLaunch> recorded = new ArrayList<>();
        for (int k = 0; k < LAUNCHES; k++) {
            boolean even = k % 2 == 0;
            recorded.add(new RecordedLaunch(
                    step,
                    LaunchDims.linear(LENGTH, 64),
                    new Bindings(List.of(even ? a : b, even ? b : a), even ? info0 : info1, 2)));
        }
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            stream.write(a, WgpuTestSupport.ints(arena, initialA));
            stream.write(b, WgpuTestSupport.ints(arena, initialB));
            backend.memory().upload(info0, WgpuTestSupport.ints(arena, LENGTH, CONSTANTS[0]));
            backend.memory().upload(info1, WgpuTestSupport.ints(arena, LENGTH, CONSTANTS[1]));

            BackendGraph graph = ((SoftwareGraphs) stream.capture()).seal(new RecordedLaunches(recorded));
            assertThat(graph.nodeCount()).isEqualTo(LAUNCHES);
            stream.replay(graph);
            stream.replay(graph);

            MemorySegment outA = arena.allocate(bytes);
            MemorySegment outB = arena.allocate(bytes);
            stream.read(a, outA);
            stream.read(b, outB);
            int[][] expected = simulate(initialA, initialB, 2 * LAUNCHES);
            assertThat(WgpuTestSupport.toInts(outA)).containsExactly(expected[0]);
            assertThat(WgpuTestSupport.toInts(outB)).containsExactly(expected[1]);

            stream.destroy(graph);
        } finally {
            stream.close();
            backend.memory().free(block);
        }
    }

    @Test
    void replay_after_eager_launches_on_the_same_stream_runs_after_them() {
        long bytes = CAPACITY * 4L;
        DeviceAllocation ba = backend.memory().allocate(bytes);
        DeviceAllocation bb = backend.memory().allocate(bytes);
        DeviceAllocation bi = backend.memory().allocate(8);
        DeviceSlice a = new DeviceSlice(ba, 0, bytes);
        DeviceSlice b = new DeviceSlice(bb, 0, bytes);
        DeviceSlice info = new DeviceSlice(bi, 0, 8);
        int[] initialA = new int[CAPACITY];
        for (int i = 0; i < CAPACITY; i++) {
            initialA[i] = 31 * i + 1;
        }
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            stream.write(a, WgpuTestSupport.ints(arena, initialA));
            stream.write(b, WgpuTestSupport.ints(arena, new int[CAPACITY]));
            backend.memory().upload(info, WgpuTestSupport.ints(arena, LENGTH, CONSTANTS[0]));
            Bindings forward = new Bindings(List.of(a, b), info, 2);
            Bindings backward = new Bindings(List.of(b, a), info, 2);
            BackendGraph graph = ((SoftwareGraphs) stream.capture())
                    .seal(new RecordedLaunches(
                            List.of(new RecordedLaunch(step, LaunchDims.linear(LENGTH, 64), backward))));

            stream.launch(step, LaunchDims.linear(LENGTH, 64), forward); // still in the open encoder
            stream.replay(graph);

            MemorySegment out = arena.allocate(bytes);
            stream.read(a, out);
            int[] expected = initialA.clone();
            for (int i = 0; i < LENGTH; i++) {
                int once = initialA[i] * 1664525 + CONSTANTS[0] + i;
                expected[i] = once * 1664525 + CONSTANTS[0] + i;
            }
            assertThat(WgpuTestSupport.toInts(out)).containsExactly(expected);
            stream.destroy(graph);
        } finally {
            stream.close();
            backend.memory().free(ba);
            backend.memory().free(bb);
            backend.memory().free(bi);
        }
    }

    /** The launches on the host: the same wrapping 32-bit arithmetic as the WGSL u32 kernel. */
    private static int[][] simulate(int[] initialA, int[] initialB, int launches) {
        int[] a = initialA.clone();
        int[] b = initialB.clone();
        for (int k = 0; k < launches; k++) {
            boolean even = k % 2 == 0;
            int[] src = even ? a : b;
            int[] dst = even ? b : a;
            int constant = CONSTANTS[k % 2];
            for (int i = 0; i < LENGTH; i++) {
                dst[i] = src[i] * 1664525 + constant + i;
            }
        }
        return new int[][] {a, b};
    }
}
