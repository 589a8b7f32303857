package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.StreamEvent;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Group 28: where two features meet (issue 26). Each test is one seam a user reaches through the public API: an
 * output allocated inside a pooled step, a refused pooled capture, a step that allocates what it returns, a fork/join
 * after one warm-up, checked mode inside a capture, cancelled windows with large info blocks. The rules are DESIGN
 * section 4's: an output a step keeps open belongs to its graph and never shares another graph's memory; a refused or
 * cancelled capture leaves nothing that aliases anything; one warm-up primes everything the recorded run needs.
 *
 * <p>Group 28 of {@link CaptureConformanceKit}.
 */
public abstract class SeamsGroup extends KitFixture {
    /** This group's vectors: three blocks and a ragged tail, shorter than the fixture's {@link #N}. */
    private static final int SEAM_N = 3 * BLOCK + 19;

    private static final long SEAM_BYTES = SEAM_N * 4L;
    private static final LaunchDims SEAM_DIMS = LaunchDims.linear(SEAM_N, BLOCK);

    /** One launch over {@link #SEAM_N} elements, its one info word the length. */
    private static void launchSeam(GpuStream s, Kernel kernel, Buffer src, Buffer dst) {
        s.launch(kernel, SEAM_DIMS, KernelArgs.of(src, dst).info(SEAM_N));
    }

    /** out = (in + 1) * 2 through a temporary the step allocates and closes: one intermediate for the pool. */
    private Consumer<GpuStream> withTemporary(Buffer in, Buffer out) {
        return s -> {
            try (Buffer temp = s.allocate(SEAM_BYTES)) {
                launchSeam(s, addOne, in, temp);
                launchSeam(s, mulTwo, temp, out);
            }
        };
    }

    private static int[] addThenDouble(int[] x) {
        return KitKernels.mulTwo(KitKernels.addOne(x));
    }

    @Test
    void a_step_that_allocates_the_output_it_returns_captures_with_the_default_warm_up_and_replays_exactly() {
        int[] x = KitKernels.pattern(SEAM_N, 2801);
        Buffer in = stream.upload(x);
        AtomicReference<Buffer> kept = new AtomicReference<>();
        try (Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
            Buffer out = s.allocate(SEAM_BYTES);
            launchSeam(s, addOne, in, out);
            kept.set(out);
        })) {
            Buffer out = kept.get();
            stream.write(out, KitKernels.poison(SEAM_N));
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
            stream.write(in, KitKernels.pattern(SEAM_N, 2802));
            graph.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.pattern(SEAM_N, 2802)));
            out.close();
        }
    }

    @Test
    void an_output_kept_open_in_a_pooled_step_is_the_graphs_own_and_another_graph_of_the_pool_never_writes_it() {
        int[] x = KitKernels.pattern(SEAM_N, 2803);
        Buffer in = stream.upload(x);
        Buffer firstOut = stream.upload(KitKernels.poison(SEAM_N));
        try (GraphPool pool = runtime.graphPool()) {
            CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
            Graph first = stream.capture(pooled, withTemporary(in, firstOut));
            AtomicReference<Buffer> kept = new AtomicReference<>();
            Graph second = stream.capture(pooled, s -> {
                Buffer out = s.allocate(SEAM_BYTES); // the size of the first graph's temporary
                launchSeam(s, addOne, in, out);
                kept.set(out);
            });
            Buffer output = kept.get();
            second.replay();
            first.replay();
            assertThat(stream.readInts(output))
                    .as("the second graph's output after the first replays")
                    .isEqualTo(KitKernels.addOne(x));
            int[] mine = KitKernels.pattern(SEAM_N, 2804);
            stream.write(output, mine);
            first.replay();
            assertThat(stream.readInts(output))
                    .as("what the user wrote into the output stays")
                    .isEqualTo(mine);
            assertThat(stream.readInts(firstOut)).isEqualTo(addThenDouble(x));
            output.close();
            second.close();
            first.close();
        }
        in.close();
        firstOut.close();
    }

    @Test
    void a_graph_cache_whose_step_allocates_each_keys_output_on_first_use_keeps_every_output_exact() {
        int[] x = KitKernels.pattern(SEAM_N, 2805);
        Buffer in = stream.upload(x);
        Map<Integer, Buffer> outputs = new HashMap<>();
        try (GraphCache<Integer> cache = runtime.graphCache(stream, GraphCacheOptions.defaults())) {
            for (int round = 0; round < 3; round++) {
                for (int key = 1; key <= 2; key++) {
                    int k = key;
                    cache.run(key, s -> {
                        Buffer out = outputs.computeIfAbsent(k, unused -> s.allocate(SEAM_BYTES));
                        try (Buffer temp = s.allocate(SEAM_BYTES)) {
                            launchSeam(s, k == 1 ? addOne : mulTwo, in, temp);
                            launchSeam(s, addOne, temp, out);
                        }
                    });
                }
                assertThat(stream.readInts(outputs.get(1)))
                        .as("key 1, round %d", round)
                        .isEqualTo(KitKernels.addOne(KitKernels.addOne(x)));
                assertThat(stream.readInts(outputs.get(2)))
                        .as("key 2, round %d", round)
                        .isEqualTo(KitKernels.addOne(KitKernels.mulTwo(x)));
            }
            assertThat(cache.size()).as("both keys are cached").isEqualTo(2);
        }
        outputs.values().forEach(Buffer::close);
        in.close();
    }

    @Test
    void a_pooled_capture_refused_for_an_open_view_leaves_that_buffer_with_memory_of_its_own() {
        int[] x = KitKernels.pattern(SEAM_N, 2806);
        Buffer in = stream.upload(x);
        Buffer firstOut = stream.upload(KitKernels.poison(SEAM_N));
        try (GraphPool pool = runtime.graphPool()) {
            CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
            Graph first = stream.capture(pooled, withTemporary(in, firstOut));
            stream.prepare(pooled);
            // the warm-up closes it: a temporary, placed in the first graph's memory
            stream.allocate(SEAM_BYTES).close();
            stream.endWarmupPass();
            stream.beginCapture(pooled);
            Buffer kept = stream.allocate(SEAM_BYTES); // ... which the recording then keeps open
            launchSeam(stream, addOne, in, kept);
            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("still open");
            stream.cancelCapture();

            int[] mine = KitKernels.pattern(SEAM_N, 2807);
            stream.write(kept, mine);
            first.replay();
            assertThat(stream.readInts(kept))
                    .as("the first graph's temporary is not the kept buffer")
                    .isEqualTo(mine);
            assertThat(stream.readInts(firstOut)).isEqualTo(addThenDouble(x));
            Graph again = stream.capture(CaptureOptions.defaults(), s -> launchSeam(s, mulTwo, in, kept));
            again.replay();
            first.replay();
            assertThat(stream.readInts(kept)).isEqualTo(KitKernels.mulTwo(x));
            again.close();
            first.close();
            kept.close();
        }
        in.close();
        firstOut.close();
    }

    @Test
    void a_fork_join_step_whose_second_stream_allocates_captures_after_one_warm_up() {
        Assumptions.assumeTrue(
                runtime.capabilities().contains(Capability.MULTI_STREAM_CAPTURE),
                "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
        int[] x = KitKernels.pattern(SEAM_N, 2808);
        Buffer in = stream.upload(x);
        Buffer out = stream.upload(KitKernels.poison(SEAM_N));
        try (GpuStream side = runtime.openStream()) {
            Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                Buffer mid = s.allocate(SEAM_BYTES);
                launchSeam(s, addOne, in, mid);
                StreamEvent fork = s.record();
                side.waitFor(fork);
                try (Buffer branch = side.allocate(SEAM_BYTES)) { // the second stream's own temporary
                    launchSeam(side, mulTwo, mid, branch);
                    launchSeam(side, addOne, branch, out);
                }
                s.waitFor(side.record());
                mid.close(); // last used on the second stream
            });
            for (int replay = 0; replay < 3; replay++) {
                stream.write(out, KitKernels.poison(SEAM_N));
                graph.replay();
                assertThat(stream.readInts(out))
                        .as("replay %d", replay)
                        .isEqualTo(KitKernels.addOne(KitKernels.mulTwo(KitKernels.addOne(x))));
            }
            graph.close();
        }
        in.close();
        out.close();
    }

    @Test
    void checked_mode_captures_a_step_that_allocates_and_replays_exactly() {
        try (GraphRuntime checked = openCheckedRuntime();
                GpuStream s = checked.openStream()) {
            Kernel add = checked.compile(KitKernels.ADD_ONE);
            Kernel mul = checked.compile(KitKernels.MUL_TWO);
            int[] x = KitKernels.pattern(SEAM_N, 2809);
            Buffer in = s.upload(x);
            Buffer out = s.upload(KitKernels.poison(SEAM_N));
            try (Graph graph = s.capture(CaptureOptions.defaults(), step -> {
                try (Buffer temp = step.allocate(2048 + SEAM_BYTES)) {
                    launchSeam(step, add, in, temp);
                    launchSeam(step, mul, temp, out);
                }
            })) {
                graph.replay();
                assertThat(s.readInts(out)).isEqualTo(addThenDouble(x));
            }
        }
    }

    @Test
    void cancelled_captures_with_large_info_blocks_give_their_info_buffers_back() {
        int[] x = KitKernels.pattern(SEAM_N, 2810);
        Buffer in = stream.upload(x);
        Buffer out = stream.upload(KitKernels.poison(SEAM_N));
        stream.synchronize();
        runtime.trim();
        long before = runtime.memoryStats().reservedBytes();
        for (int window = 0; window < 40; window++) {
            int[] info = new int[2048]; // 8 KiB of info words: above the normal cache's size gate
            info[0] = SEAM_N;
            info[1] = window;
            stream.prepare();
            stream.launch(addOne, SEAM_DIMS, KernelArgs.of(in, out).info(info));
            stream.cancelCapture();
        }
        stream.synchronize();
        runtime.trim();
        assertThat(runtime.memoryStats().reservedBytes())
                .as("nothing of 40 cancelled windows stays reserved")
                .isLessThanOrEqualTo(before);
        assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
        in.close();
        out.close();
    }
}
