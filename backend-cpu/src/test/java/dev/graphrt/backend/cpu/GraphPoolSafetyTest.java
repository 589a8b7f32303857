package dev.graphrt.backend.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * What a graph pool never shares: an output its step keeps open (it belongs to its graph), a buffer a refused capture
 * left open (it gets memory of its own), and the warm-up's own temporaries.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphPoolSafetyTest {
    private static final int N = 2048;
    private static final LaunchDims DIMS = LaunchDims.linear(N, 256);
    private GraphRuntime runtime;
    private GpuStream stream;
    private Kernel addOne;
    private Buffer in;

    @BeforeEach
    void open() {
        runtime = GraphRT.open(RuntimeOptions.defaults().backend("cpu"));
        stream = runtime.openStream();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        in = stream.upload(KitKernels.pattern(N, 1));
    }

    @AfterEach
    void close() {
        stream.close();
        runtime.close();
    }

    /** A pooled graph whose step leaves one closed temporary behind: an intermediate of the pool. */
    private Graph graphWithTemporary(GraphPool pool, Buffer out) {
        return stream.capture(CaptureOptions.defaults().pool(pool), s -> {
            try (Buffer temp = s.allocate(N * 4L)) {
                s.launch(addOne, DIMS, KernelArgs.of(in, temp).info(N));
                s.launch(addOne, DIMS, KernelArgs.of(temp, out).info(N));
            }
        });
    }

    @Test
    void an_output_the_step_keeps_open_belongs_to_its_graph_and_no_other_graph_of_the_pool_writes_it() {
        try (GraphPool pool = runtime.graphPool();
                Buffer out = stream.allocate(N * 4L)) {
            Graph first = graphWithTemporary(pool, out);
            Buffer[] kept = new Buffer[1];
            Graph second = stream.capture(CaptureOptions.defaults().pool(pool), s -> {
                kept[0] = s.allocate(N * 4L); // an output: the warm-up keeps it open too
                s.launch(addOne, DIMS, KernelArgs.of(in, kept[0]).info(N));
            });
            second.replay();
            int[] expected = KitKernels.addOne(KitKernels.pattern(N, 1));
            assertThat(stream.readInts(kept[0])).isEqualTo(expected);

            first.replay();

            assertThat(stream.readInts(kept[0]))
                    .as("the first graph's temporary is not the output")
                    .isEqualTo(expected);
            stream.write(kept[0], KitKernels.pattern(N, 5));
            first.replay();
            assertThat(stream.readInts(kept[0])).as("what the user wrote stays").isEqualTo(KitKernels.pattern(N, 5));
            kept[0].close();
        }
    }

    @Test
    void a_recording_that_keeps_open_what_its_warm_up_closed_is_refused_and_the_buffer_then_gets_memory_of_its_own() {
        try (GraphPool pool = runtime.graphPool();
                Buffer out = stream.allocate(N * 4L)) {
            Graph first = graphWithTemporary(pool, out);
            CaptureOptions pooled = CaptureOptions.defaults().pool(pool);
            stream.prepare(pooled);
            stream.allocate(N * 4L).close(); // the warm-up closes it: a temporary
            stream.endWarmupPass();
            stream.beginCapture(pooled);
            Buffer kept = stream.allocate(N * 4L); // so it is lent the first graph's temporary, and never closed
            stream.launch(addOne, DIMS, KernelArgs.of(in, kept).info(N));

            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("still open")
                    .hasMessageContaining("cancel it");
            assertThat(stream.captureState()).as("the capture is intact").isEqualTo(CaptureState.CAPTURE);
            stream.cancelCapture();

            stream.write(kept, KitKernels.pattern(N, 6));
            first.replay();
            assertThat(stream.readInts(kept))
                    .as("no longer the first graph's temporary")
                    .isEqualTo(KitKernels.pattern(N, 6));
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.addOne(KitKernels.pattern(N, 1))));
            kept.close();
        }
    }

    @Test
    void a_pooled_warm_up_runs_in_memory_of_its_own_so_replaying_a_graph_of_the_pool_in_it_changes_nothing_of_it() {
        try (GraphPool pool = runtime.graphPool();
                Buffer out = stream.allocate(N * 4L)) {
            Graph first = graphWithTemporary(pool, out);
            stream.prepare(CaptureOptions.defaults().pool(pool));
            Buffer temp = stream.allocate(N * 4L);
            stream.launch(addOne, DIMS, KernelArgs.of(in, temp).info(N));

            first.replay();

            assertThat(stream.readInts(temp)).isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 1)));
            temp.close();
            stream.cancelCapture();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.addOne(KitKernels.pattern(N, 1))));
        }
    }

    @Test
    void an_output_allocated_lazily_in_the_warm_up_does_not_make_a_later_output_of_the_same_size_a_temporary() {
        try (GraphPool pool = runtime.graphPool();
                Buffer out = stream.allocate(N * 4L)) {
            graphWithTemporary(pool, out); // the pool now has an intermediate of this size to lend
            Buffer[] lazy = new Buffer[1];
            Buffer[] perRun = new Buffer[1];
            Graph graph = stream.capture(CaptureOptions.defaults().pool(pool), s -> {
                if (lazy[0] == null) {
                    lazy[0] = s.allocate(N * 4L); // first use only: the warm-up allocates it, the recording does not
                    s.write(lazy[0], KitKernels.pattern(N, 3));
                }
                try (Buffer temp = s.allocate(N * 4L)) {
                    s.launch(addOne, DIMS, KernelArgs.of(lazy[0], temp).info(N));
                    perRun[0] = s.allocate(N * 4L); // an output the step keeps open, warm-up and recording alike
                    s.launch(addOne, DIMS, KernelArgs.of(temp, perRun[0]).info(N));
                }
            });

            graph.replay();

            assertThat(stream.readInts(perRun[0]))
                    .as("the recorded output is the graph's own")
                    .isEqualTo(KitKernels.addOne(KitKernels.addOne(KitKernels.pattern(N, 3))));
            perRun[0].close();
            lazy[0].close();
        }
    }

    @Test
    void a_pool_is_bound_only_by_a_prepare_that_succeeded() {
        try (GraphPool pool = runtime.graphPool();
                GpuStream second = runtime.openStream();
                Buffer out = second.allocate(N * 4L)) {
            stream.prepare();
            assertThatThrownBy(() -> stream.prepare(CaptureOptions.defaults().pool(pool)))
                    .as("already in PREPARE")
                    .isInstanceOf(RuntimeException.class);
            stream.cancelCapture();
            stream.synchronize(); // in was uploaded on the first stream
            Graph graph = second.capture(
                    CaptureOptions.defaults().pool(pool),
                    s -> s.launch(addOne, DIMS, KernelArgs.of(in, out).info(N)));
            graph.replay();
            assertThat(second.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 1)));
        }
    }
}
