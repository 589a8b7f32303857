package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Graphs of one {@code GraphPool} share their intermediates (issue 17): a temporary a smaller graph of the pool
 * allocates lives in a larger graph's closed temporary, both replay exactly in any order, a capture into the pool
 * on another stream is refused, and closing one graph of the pool breaks neither the other nor a new buffer.
 *
 * <p>Group 26 of {@link CaptureConformanceKit}.
 */
public abstract class PoolsGroup extends KitFixture {
    private static final int SMALL = N / 2;

    /** out = (in + 1) * 2 over the first n elements, through a temporary allocated and closed in the step. */
    private Consumer<GpuStream> withTemporary(Buffer in, Buffer out, int n) {
        return s -> {
            try (Buffer temp = s.allocate(n * 4L)) {
                s.launch(
                        addOne,
                        LaunchDims.linear(n, BLOCK),
                        KernelArgs.of(in, temp).info(n));
                s.launch(
                        mulTwo,
                        LaunchDims.linear(n, BLOCK),
                        KernelArgs.of(temp, out).info(n));
            }
        };
    }

    private int[] expected(int[] x, int n) {
        int[] y = KitKernels.mulTwo(KitKernels.addOne(x));
        int[] result = KitKernels.poison(N);
        System.arraycopy(y, 0, result, 0, n);
        return result;
    }

    private long used() {
        stream.synchronize();
        return runtime.memoryStats().inUseBytes();
    }

    @Test
    void a_smaller_graph_of_the_pool_shares_the_larger_ones_temporary_and_both_replay_exactly() {
        int[] x = KitKernels.pattern(N, 270);
        Buffer in = upload(x);
        Buffer bigOut = poisoned();
        Buffer smallOut = poisoned();
        Buffer alone = poisoned();
        try (GraphPool pool = runtime.graphPool()) {
            CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
            Graph big = track(stream.capture(pooled, withTemporary(in, bigOut, N)));
            long beforeSmall = used();
            Graph small = track(stream.capture(pooled, withTemporary(in, smallOut, SMALL)));
            long pooledCost = used() - beforeSmall;
            Graph unpooled = track(stream.capture(CaptureOptions.defaults(), withTemporary(in, alone, SMALL)));
            long unpooledCost = used() - beforeSmall - pooledCost;

            assertThat(unpooledCost)
                    .as("a small graph of its own allocates its temporary")
                    .isGreaterThanOrEqualTo(SMALL * 4L);
            assertThat(pooledCost)
                    .as("the pooled small graph's temporary is the big graph's (at most its info " + "words are new)")
                    .isLessThan(SMALL * 4L);
            assertThat(runtime.memoryStats().sharedPerPool().get(pool.id()))
                    .as("the pool's shared memory: the " + "big temporary, once")
                    .isGreaterThanOrEqualTo(BYTES)
                    .isLessThan(BYTES + SMALL * 4L);
            for (int round = 0; round < 3; round++) {
                stream.write(bigOut, KitKernels.poison(N));
                stream.write(smallOut, KitKernels.poison(N));
                big.replay();
                small.replay();
                assertThat(read(bigOut)).as("big, round %d", round).isEqualTo(expected(x, N));
                assertThat(read(smallOut)).as("small, round %d", round).isEqualTo(expected(x, SMALL));
                small.replay();
                big.replay();
                assertThat(read(bigOut)).isEqualTo(expected(x, N));
            }
            unpooled.replay();
            assertThat(read(alone)).isEqualTo(expected(x, SMALL));
        }
    }

    @Test
    void a_capture_into_the_pool_on_another_stream_is_refused_naming_the_pool() {
        Buffer in = upload(KitKernels.pattern(N, 271));
        Buffer out = poisoned();
        try (GraphPool pool = runtime.graphPool();
                GpuStream other = runtime.openStream()) {
            track(stream.capture(CaptureOptions.defaults().pool(pool), withTemporary(in, out, N)));
            assertThatThrownBy(() -> other.capture(CaptureOptions.defaults().pool(pool), withTemporary(in, out, N)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("graph pool #" + pool.id())
                    .hasMessageContaining("stream #" + stream.id());
            assertThat(other.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        }
        assertRecapturable();
    }

    @Test
    void closing_the_graph_whose_temporary_another_graph_shares_breaks_neither_that_graph_nor_a_new_buffer() {
        int[] x = KitKernels.pattern(N, 272);
        Buffer in = upload(x);
        Buffer bigOut = poisoned();
        Buffer smallOut = poisoned();
        try (GraphPool pool = runtime.graphPool()) {
            CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
            Graph big = stream.capture(pooled, withTemporary(in, bigOut, N));
            Graph small = track(stream.capture(pooled, withTemporary(in, smallOut, SMALL)));
            big.replay();
            big.close();
            stream.synchronize();
            int[] pattern = KitKernels.pattern(N, 273);
            Buffer fresh = upload(pattern); // must not get the temporary small still uses

            small.replay();
            assertThat(read(smallOut)).isEqualTo(expected(x, SMALL));
            assertThat(read(fresh)).as("no replay writes into a new buffer").isEqualTo(pattern);
        }
    }
}
