package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.LaunchDims;
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
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A replay submitted in many small chunks (seven launches each) keeps every result exact. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuChunkedReplayTest {
    private static final int LENGTH = 500;
    private static final int LAUNCHES = 101; // 14 chunks of 7 and a last one of 3
    private static final int[] CONSTANTS = {77, -4242};

    private WgpuBackend backend;
    private CompiledKernel step;

    @BeforeAll
    void open() {
        backend = WgpuTestSupport.open(Map.of(WgpuBackendProvider.REPLAY_CHUNK_OPTION, "7"));
        step = backend.compiler().compile(WgpuTestSupport.LCG_STEP);
    }

    @AfterAll
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void every_chunk_sets_its_state_afresh_and_a_write_between_two_replays_is_seen_by_the_second() {
        long bytes = LENGTH * 4L;
        DeviceAllocation block = backend.memory().allocate(4096 + 512);
        DeviceSlice a = new DeviceSlice(block, 0, bytes);
        DeviceSlice b = new DeviceSlice(block, 2048, bytes);
        DeviceSlice info0 = new DeviceSlice(block, 4096, 8);
        DeviceSlice info1 = new DeviceSlice(block, 4096 + 256, 8);
        List<RecordedLaunch> recorded = new ArrayList<>();
        for (int k = 0; k < LAUNCHES; k++) {
            boolean even = k % 2 == 0;
            recorded.add(new RecordedLaunch(
                    step,
                    LaunchDims.linear(LENGTH, 64),
                    new Bindings(List.of(even ? a : b, even ? b : a), even ? info0 : info1, 2)));
        }
        int[] firstA = new int[LENGTH];
        int[] secondA = new int[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            firstA[i] = 3 * i + 11;
            secondA[i] = -7 * i + 5;
        }
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            stream.write(a, WgpuTestSupport.ints(arena, firstA));
            stream.write(b, WgpuTestSupport.ints(arena, new int[LENGTH]));
            backend.memory().upload(info0, WgpuTestSupport.ints(arena, LENGTH, CONSTANTS[0]));
            backend.memory().upload(info1, WgpuTestSupport.ints(arena, LENGTH, CONSTANTS[1]));
            SealedGraph graph = (SealedGraph) ((SoftwareGraphs) stream.capture()).seal(new RecordedLaunches(recorded));
            assertThat(graph.chunkCount()).isEqualTo(15);

            stream.replay(graph);
            int[][] afterFirst = simulate(firstA, new int[LENGTH], LAUNCHES);
            stream.write(a, WgpuTestSupport.ints(arena, secondA)); // between the replays
            stream.replay(graph);

            MemorySegment outA = arena.allocate(bytes);
            MemorySegment outB = arena.allocate(bytes);
            stream.read(a, outA);
            stream.read(b, outB);
            int[][] expected = simulate(secondA, afterFirst[1], LAUNCHES);
            assertThat(WgpuTestSupport.toInts(outA)).containsExactly(expected[0]);
            assertThat(WgpuTestSupport.toInts(outB)).containsExactly(expected[1]);
            assertThat(stream.drainErrors()).isEmpty();
            stream.destroy(graph);
        } finally {
            stream.close();
            backend.memory().free(block);
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
            for (int i = 0; i < LENGTH; i++) {
                dst[i] = src[i] * 1664525 + CONSTANTS[k % 2] + i;
            }
        }
        return new int[][] {a, b};
    }
}
