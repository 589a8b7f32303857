package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Issue 13: a launch whose argument count differs from the kernel's declared parameters is refused at the call. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class LaunchArgumentsTest {
    private static final LaunchDims DIMS = LaunchDims.linear(3, 32);
    private static final KernelSource SRC_DST_INFO =
            KernelSource.named("copy").java((args, from, to) -> {}, JavaParameters.buffersAndInfo(2));

    private final FakeBackend backend = new FakeBackend();
    private final CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
    private final GpuStream stream = runtime.openStream();
    private final Kernel copy = runtime.compile(SRC_DST_INFO);
    private final Buffer a = stream.upload(new int[] {1, 2, 3});
    private final Buffer b = stream.upload(new int[] {4, 5, 6});
    private final Buffer c = stream.upload(new int[] {7, 8, 9});

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    void the_declared_buffers_then_the_info_buffer_are_accepted() {
        stream.launch(copy, DIMS, KernelArgs.of(a, b).info(3));

        assertThat(backend.launches.get()).isEqualTo(1);
    }

    @Test
    void too_few_buffers_are_refused_naming_the_kernel_and_both_counts() {
        assertThatThrownBy(() -> stream.launch(copy, DIMS, KernelArgs.of(a).info(3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kernel 'copy' takes 3 parameters, but the launch passes 2: 1 buffer + the info buffer "
                        + "(buffers in order, then the info buffer when the launch has info words; docs/kernels.md)");
    }

    @Test
    void too_many_buffers_are_refused() {
        assertThatThrownBy(
                        () -> stream.launch(copy, DIMS, KernelArgs.of(a, b, c).info(3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("kernel 'copy' takes 3 parameters, but the launch passes 4: 3 buffers + the "
                        + "info buffer (");
    }

    @Test
    void the_right_buffers_without_the_info_buffer_are_refused() {
        assertThatThrownBy(() -> stream.launch(copy, DIMS, KernelArgs.of(a, b)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "kernel 'copy' takes 3 parameters, but the launch passes 2: 2 buffers, no " + "info buffer (");
    }

    @Test
    void a_refused_launch_reaches_no_backend_allocates_no_info_and_holds_no_buffer() {
        long live = backend.memory.liveBytes();
        int allocations = backend.memory.allocations();

        assertThatThrownBy(() -> stream.launch(copy, DIMS, KernelArgs.of(a).info(77, 78)))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(backend.launches.get()).isZero();
        assertThat(backend.memory.allocations()).as("no info buffer uploaded").isEqualTo(allocations);
        assertThat(backend.memory.liveBytes()).isEqualTo(live);
        stream.launch(copy, DIMS, KernelArgs.of(a, b).info(3));
        assertThat(backend.launches.get()).as("the stream stays usable").isEqualTo(1);
    }

    @Test
    void a_refusal_inside_a_capture_records_nothing_and_leaves_the_capture_usable() {
        stream.prepare();
        stream.beginCapture();

        assertThatThrownBy(
                        () -> stream.launch(copy, DIMS, KernelArgs.of(a, b, c).info(3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(stream.captureState()).isEqualTo(CaptureState.CAPTURE);
        stream.launch(copy, DIMS, KernelArgs.of(a, b).info(3));
        try (Graph graph = stream.endCapture()) {
            assertThat(graph.info().nodeCount()).as("only the accepted launch").isEqualTo(1);
        }
    }

    @Test
    void a_kernel_whose_backend_cannot_tell_its_parameters_is_not_checked() {
        Kernel undeclared = runtime.compile(KernelSource.named("loose").java((args, from, to) -> {}));

        stream.launch(undeclared, DIMS, KernelArgs.of(a, b, c));
        stream.launch(undeclared, DIMS, KernelArgs.of(a).info(3));

        assertThat(backend.launches.get()).isEqualTo(2);
    }

    @Test
    void one_parameter_is_singular_and_no_buffers_plural() {
        assertThat(LaunchArguments.message("k", 1, 0, false))
                .startsWith("kernel 'k' takes 1 parameter, but the launch passes 0: 0 buffers, no info buffer (");
    }
}
