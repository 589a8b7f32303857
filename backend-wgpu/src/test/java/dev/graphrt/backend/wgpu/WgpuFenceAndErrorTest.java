package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuFenceAndErrorTest {
    private static final int N = 256;

    private WgpuBackend backend;
    private CompiledKernel addOne;
    private DeviceAllocation block;
    private DeviceSlice src;
    private DeviceSlice dst;
    private DeviceSlice info;
    private BackendStream stream;

    @BeforeAll
    void open() {
        backend = WgpuTestSupport.open();
        addOne = backend.compiler().compile(WgpuTestSupport.ADD_ONE);
    }

    @AfterAll
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    @BeforeEach
    void buffers() {
        block = backend.memory().allocate(3 * 1024L);
        src = new DeviceSlice(block, 0, N * 4L);
        dst = new DeviceSlice(block, 1024, N * 4L);
        info = new DeviceSlice(block, 2048, 4);
        stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            stream.write(src, WgpuTestSupport.floats(arena, new float[N]));
            backend.memory().upload(info, WgpuTestSupport.ints(arena, N));
        }
    }

    @AfterEach
    void release() {
        stream.close();
        backend.memory().free(block);
    }

    private Bindings bindings() {
        return new Bindings(List.of(src, dst), info, 1);
    }

    @Test
    void a_fence_after_launches_completes_and_stays_complete() {
        for (int i = 0; i < 10; i++) {
            stream.launch(addOne, LaunchDims.linear(N, 64), bindings());
        }
        Fence fence = stream.recordFence();

        stream.await(fence);

        assertThat(stream.isComplete(fence)).isTrue();
        Fence later = stream.recordFence();
        assertThat(later).as("no new submission: the same point on the queue").isSameAs(fence);
        stream.launch(addOne, LaunchDims.linear(N, 64), bindings());
        Fence third = stream.recordFence();
        assertThat(third).isNotSameAs(fence);
        stream.synchronize();
        assertThat(stream.isComplete(third)).isTrue();
    }

    @Test
    void a_fence_is_polled_without_blocking_until_the_work_finishes() {
        stream.launch(addOne, LaunchDims.linear(N, 64), bindings());
        Fence fence = stream.recordFence();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!stream.isComplete(fence) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(stream.isComplete(fence)).isTrue();
    }

    @Test
    void an_uncaptured_device_error_surfaces_from_synchronize_and_the_stream_stays_usable() {
        LaunchDims tooWide = new LaunchDims(backend.limits().maxWorkgroupsPerDimension() + 1, 1, 1, 64, 1, 1);
        unchecked(tooWide);

        assertThatThrownBy(() -> stream.synchronize()).isInstanceOfSatisfying(DriverException.class, e -> {
            assertThat(e.codeName()).isEqualTo("Validation");
            assertThat(e.getMessage()).containsIgnoringCase("workgroup");
        });
        assertThat(stream.drainErrors()).isEmpty();

        stream.launch(addOne, LaunchDims.linear(N, 64), bindings());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(N * 4L);
            stream.read(dst, out);
            assertThat(WgpuTestSupport.toFloats(out)).containsOnly(1.0f);
        }
    }

    @Test
    void drain_errors_hands_over_an_error_of_enqueued_work_without_throwing() {
        unchecked(new LaunchDims(backend.limits().maxWorkgroupsPerDimension() + 1, 1, 1, 64, 1, 1));

        List<Throwable> errors = stream.drainErrors();

        assertThat(errors).isNotEmpty();
        assertThat(errors.getFirst()).isInstanceOf(DriverException.class);
        assertThat(stream.drainErrors()).isEmpty();
        stream.synchronize();
    }

    @Test
    void a_read_reports_an_error_of_earlier_work_after_copying() {
        unchecked(new LaunchDims(backend.limits().maxWorkgroupsPerDimension() + 1, 1, 1, 64, 1, 1));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(N * 4L);
            assertThatThrownBy(() -> stream.read(dst, out)).isInstanceOf(DriverException.class);
        }
        stream.synchronize();
    }

    @Test
    void a_launch_whose_kernel_wants_more_bindings_than_given_fails_fast_naming_the_argument() {
        assertThatThrownBy(
                        () -> stream.launch(addOne, LaunchDims.linear(N, 64), new Bindings(List.of(src, dst), null, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@binding(2)");
        stream.synchronize();
    }

    /** A launch the device itself refuses (the backend's own grid check would refuse it at the call). */
    private void unchecked(LaunchDims tooWide) {
        ((WgpuStream) stream).dispatchUnchecked((WgpuKernel) addOne, tooWide, bindings());
    }
}
