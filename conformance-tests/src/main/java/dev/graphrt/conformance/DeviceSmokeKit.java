package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureInvalidatedException;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.Fence;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Real work on a real GPU for a hardware-graph backend, driving the backend SPI directly (no core): one abstract
 * class with one hook, {@link #provider()}, extended by each driver backend's test (cuda, hip). It runs only where
 * the provider's probe finds a device, and otherwise skips every test with the probe's reason.
 *
 * <p>Why one suite: the cuda and hip backends share their driver layer, so they must pass the same device
 * checks; a backend's subclass adds only what is its own (a dialect fallback, a runtime's optional calls).
 * Kernels carry CUDA C and HIP C text; a compile error's log must quote the undefined name.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DeviceSmokeKit {
    /** Elements of the test buffer: not a multiple of the block, so the kernel's bounds check matters. */
    protected static final int N = 1000;
    /** {@code data[i] += 1} for {@code i < info[0]}, in CUDA C (which HIP C accepts as it is). */
    protected static final String ADD_ONE = """
            extern "C" __global__ void add_one(float* data, const int* info) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < info[0]) {
                    data[i] += 1.0f;
                }
            }
            """;

    private Availability probe;
    private CompiledKernel addOne;
    /** The backend under test, open for the whole class; null where the probe found no device. */
    protected Backend backend;

    /** A fresh stream per test, and {@link #N} floats of device data bound with an info word holding N. */
    protected BackendStream stream;
    /** The stream's capture support: a hardware-graph backend's stream offers driver capture. */
    protected DriverCapture capture;

    private DeviceAllocation dataBlock;
    private DeviceAllocation infoBlock;
    protected DeviceSlice data;
    protected Bindings bindings;

    /** The provider of the backend under test. */
    protected abstract BackendProvider provider();

    @BeforeAll
    void openBackend() {
        probe = provider().probe();
        if (probe.available()) {
            backend = provider().open(BackendConfig.defaults());
            addOne = backend.compiler()
                    .compile(KernelSource.named("add_one").cuda(ADD_ONE).hip(ADD_ONE));
        }
    }

    @AfterAll
    void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    @BeforeEach
    void allocate() {
        assumeTrue(probe.available(), probe.detail()); // per test, so every skip shows the probe's reason
        dataBlock = backend.memory().allocate(4L * N);
        infoBlock = backend.memory().allocate(256);
        data = new DeviceSlice(dataBlock, 0, 4L * N);
        DeviceSlice info = new DeviceSlice(infoBlock, 0, 4);
        backend.memory().upload(info, MemorySegment.ofArray(new int[] {N}));
        bindings = new Bindings(List.of(data), info, 1);
        stream = backend.openStream();
        capture = stream.capture() instanceof DriverCapture driver ? driver : null;
    }

    @AfterEach
    void release() {
        if (backend == null) {
            return;
        }
        if (stream != null) {
            stream.synchronize();
            stream.close();
        }
        backend.memory().free(dataBlock);
        backend.memory().free(infoBlock);
    }

    protected static float[] ramp() {
        float[] values = new float[N];
        for (int i = 0; i < N; i++) {
            values[i] = i * 0.5f;
        }
        return values;
    }

    protected float[] readData() {
        float[] out = new float[N];
        stream.read(data, MemorySegment.ofArray(out));
        return out;
    }

    protected void launchAddOne() {
        stream.launch(addOne, LaunchDims.linear(N, 256), bindings);
    }

    protected static float[] plus(float[] values, float delta) {
        float[] out = values.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] += delta;
        }
        return out;
    }

    protected void destroyAfterFence(BackendGraph graph) {
        Fence fence = stream.recordFence();
        stream.await(fence);
        stream.destroy(graph);
    }

    @Test
    void the_backend_describes_a_hardware_graph_device_honestly() {
        assertThat(backend.name()).isEqualTo(provider().name());
        assertThat(stream.capture())
                .as("a hardware-graph backend's stream offers driver capture")
                .isInstanceOf(DriverCapture.class)
                .isSameAs(stream.capture());
        assertThat(backend.capabilities()).contains(Capability.RECORDS_WRITES, Capability.CAPTURE_MODE_RELAXED);
        assertThat(backend.device().computeUnits()).isPositive();
        assertThat(backend.device().memoryBytes()).isPositive();
        assertThat(backend.memory().alignment()).isEqualTo(256);
    }

    @Test
    void add_one_compiles_runs_and_reads_back_exactly() {
        float[] start = ramp();
        stream.write(data, MemorySegment.ofArray(start));

        launchAddOne();

        assertThat(readData()).containsExactly(plus(start, 1));
    }

    @Test
    void a_captured_graph_of_150_launches_replays_twice_exactly() {
        float[] start = ramp();
        stream.write(data, MemorySegment.ofArray(start));
        stream.onPrepare();
        launchAddOne(); // warm-up pass: runs
        capture.open(CaptureMode.THREAD_LOCAL);
        for (int i = 0; i < 150; i++) {
            launchAddOne(); // recorded, not run
        }
        BackendGraph graph = capture.close();

        assertThat(graph.nodeCount()).isEqualTo(150);
        assertThat(readData()).containsExactly(plus(start, 1));

        stream.replay(graph);
        stream.replay(graph);

        assertThat(readData()).containsExactly(plus(start, 301));
        destroyAfterFence(graph);
    }

    @Test
    void the_driver_dot_export_has_one_node_per_launch_where_the_backend_declares_it() {
        assumeTrue(
                backend.capabilities().contains(Capability.DOT_EXPORT),
                backend.name() + " declares no DOT_EXPORT here");
        stream.onPrepare();
        capture.open(CaptureMode.THREAD_LOCAL);
        for (int i = 0; i < 150; i++) {
            launchAddOne();
        }
        BackendGraph graph = capture.close();

        String dot = graph.driverDot().orElseThrow();
        Set<String> nodes = new HashSet<>();
        Matcher node = Pattern.compile("\"(graph_\\d+_node_\\d+)\"").matcher(dot);
        while (node.find()) {
            nodes.add(node.group(1));
        }
        assertThat(dot).contains("digraph").contains("add_one");
        assertThat(nodes).hasSize(150);
        destroyAfterFence(graph);
    }

    @Test
    void a_write_recorded_in_a_capture_replays_the_capture_time_bytes() {
        float[] captured = new float[N];
        Arrays.fill(captured, 10f);
        stream.onPrepare();
        stream.write(data, MemorySegment.ofArray(captured)); // warm-up: runs, and sizes the reservation
        launchAddOne();
        capture.open(CaptureMode.THREAD_LOCAL);
        stream.write(data, MemorySegment.ofArray(captured));
        Arrays.fill(captured, -5f); // the graph owns its copy: this must not matter
        launchAddOne();
        BackendGraph graph = capture.close();
        stream.write(data, MemorySegment.ofArray(ramp()));

        stream.replay(graph);
        stream.replay(graph);

        float[] expected = new float[N];
        Arrays.fill(expected, 11f);
        assertThat(readData()).containsExactly(expected);
        assertThat(graph.nodeCount()).isEqualTo(2);
        destroyAfterFence(graph);
    }

    @Test
    void an_aborted_capture_leaves_the_stream_able_to_capture_again() {
        stream.onPrepare();
        capture.open(CaptureMode.GLOBAL);
        launchAddOne();
        capture.abort();

        stream.onPrepare();
        capture.open(CaptureMode.RELAXED);
        launchAddOne();
        BackendGraph graph = capture.close();

        assertThat(graph.nodeCount()).isEqualTo(1);
        destroyAfterFence(graph);
    }

    @Test
    void a_capture_the_driver_invalidated_fails_to_close_and_the_stream_captures_again() {
        stream.onPrepare();
        capture.open(CaptureMode.THREAD_LOCAL);
        launchAddOne();

        // the core never lets this through while recording; here it provokes a real invalidation
        assertThatThrownBy(stream::synchronize)
                .isInstanceOfSatisfying(
                        CaptureInvalidatedException.class,
                        e -> assertThat(e.driverCode()).isEqualTo(900));
        assertThatThrownBy(capture::close)
                .isInstanceOfSatisfying(
                        CaptureInvalidatedException.class,
                        e -> assertThat(e.driverCode()).isEqualTo(901));

        float[] start = ramp();
        stream.write(data, MemorySegment.ofArray(start));
        stream.onPrepare();
        capture.open(CaptureMode.THREAD_LOCAL);
        launchAddOne();
        BackendGraph graph = capture.close();
        stream.replay(graph);
        assertThat(readData()).containsExactly(plus(start, 1));
        destroyAfterFence(graph);
    }

    @Test
    void aborting_an_invalidated_capture_ends_it_quietly() {
        stream.onPrepare();
        capture.open(CaptureMode.GLOBAL);
        assertThatThrownBy(stream::synchronize).isInstanceOf(CaptureInvalidatedException.class);

        capture.abort();

        launchAddOne();
        stream.synchronize();
    }

    @Test
    void aborting_without_a_driver_capture_is_a_no_op() {
        stream.onPrepare();
        capture.abort();
        capture.abort();

        launchAddOne();
        stream.synchronize();
    }

    @Test
    void beginning_a_second_capture_on_a_capturing_stream_is_an_internal_error_and_the_first_still_ends() {
        capture.open(CaptureMode.THREAD_LOCAL);

        assertThatThrownBy(() -> capture.open(CaptureMode.THREAD_LOCAL))
                .isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(GraphStateException.class)
                .hasMessageContaining("already capturing");

        launchAddOne();
        BackendGraph graph = capture.close();
        assertThat(graph.nodeCount()).isEqualTo(1);
        destroyAfterFence(graph);
    }

    @Test
    void fences_complete_after_the_work_before_them() {
        stream.write(data, MemorySegment.ofArray(ramp()));
        for (int i = 0; i < 100; i++) {
            launchAddOne();
        }
        Fence fence = stream.recordFence();

        stream.await(fence);

        assertThat(stream.isComplete(fence)).isTrue();
        assertThat(stream.drainErrors()).isEmpty();
    }

    @Test
    void a_compile_error_carries_the_runtime_compilers_log() {
        String text = "extern \"C\" __global__ void broken(float* x) { x[0] = y; }";
        KernelSource broken = KernelSource.named("broken").cuda(text).hip(text);

        assertThatThrownBy(() -> backend.compiler().compile(broken))
                .isInstanceOfSatisfying(
                        KernelCompilationException.class,
                        e -> assertThat(e.log()).containsPattern("[\"']y[\"']")); // NVRTC: "y", clang: 'y'
    }

    @Test
    void a_missing_entry_point_is_a_compilation_error_that_says_extern_C() {
        KernelSource misnamed = KernelSource.named("not_there").cuda(ADD_ONE).hip(ADD_ONE);

        assertThatThrownBy(() -> backend.compiler().compile(misnamed))
                .isInstanceOf(KernelCompilationException.class)
                .hasMessageContaining("'not_there'")
                .hasMessageContaining("extern \"C\"");
    }
}
