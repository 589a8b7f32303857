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
 * What a graph pool never shares: an output its step keeps open (refused when the graph is sealed), and memory a
 * graph the pooled capture replays still uses (refused at the replay).
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
    void an_output_left_open_in_pooled_memory_is_refused_when_the_graph_is_sealed() {
        try (GraphPool pool = runtime.graphPool(); Buffer out = stream.allocate(N * 4L)) {
            graphWithTemporary(pool, out);
            stream.prepare(CaptureOptions.defaults().pool(pool));
            stream.beginCapture(CaptureOptions.defaults().pool(pool));
            Buffer kept = stream.allocate(N * 4L); // lent the first graph's temporary, and never closed
            stream.launch(addOne, DIMS, KernelArgs.of(in, kept).info(N));

            assertThatThrownBy(stream::endCapture).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("still open").hasMessageContaining("outside the step");
            assertThat(stream.captureState()).as("the capture is intact").isEqualTo(CaptureState.CAPTURE);
            stream.cancelCapture();
            kept.close();
        }
    }

    @Test
    void replaying_inside_a_pooled_capture_a_graph_whose_memory_a_live_temporary_borrowed_is_refused() {
        try (GraphPool pool = runtime.graphPool(); Buffer out = stream.allocate(N * 4L);
             Buffer other = stream.allocate(N * 4L)) {
            Graph first = graphWithTemporary(pool, out);
            stream.prepare(CaptureOptions.defaults().pool(pool));
            Buffer temp = stream.allocate(N * 4L); // a view of first's temporary
            stream.launch(addOne, DIMS, KernelArgs.of(in, temp).info(N));

            assertThatThrownBy(first::replay).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lent to");
            temp.close();
            stream.cancelCapture();
            first.replay();
            assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.addOne(KitKernels.pattern(N, 1))));
            assertThat(other.isClosed()).isFalse();
        }
    }

    @Test
    void a_pool_is_bound_only_by_a_prepare_that_succeeded() {
        try (GraphPool pool = runtime.graphPool(); GpuStream second = runtime.openStream();
             Buffer out = second.allocate(N * 4L)) {
            stream.prepare();
            assertThatThrownBy(() -> stream.prepare(CaptureOptions.defaults().pool(pool)))
                    .as("already in PREPARE").isInstanceOf(RuntimeException.class);
            stream.cancelCapture();
            stream.synchronize(); // in was uploaded on the first stream
            Graph graph = second.capture(CaptureOptions.defaults().pool(pool), s -> s.launch(addOne, DIMS,
                    KernelArgs.of(in, out).info(N)));
            graph.replay();
            assertThat(second.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.pattern(N, 1)));
        }
    }
}
