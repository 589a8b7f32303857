package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuLaunchTest {
    private WgpuBackend backend;
    private CompiledKernel addOne;

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

    @Test
    void a_launch_over_slices_of_one_allocation_reads_back_exactly() {
        int n = 4099; // 65 workgroups of 64, the last one partial
        long bytes = n * 4L;
        long stride = WgpuMemory.roundUp(bytes, 256);
        DeviceAllocation block = backend.memory().allocate(2 * stride + 256);
        DeviceSlice src = new DeviceSlice(block, 0, bytes);
        DeviceSlice dst = new DeviceSlice(block, stride, bytes);
        DeviceSlice info = new DeviceSlice(block, 2 * stride, 4);
        float[] input = new float[n];
        float[] poison = new float[n];
        for (int i = 0; i < n; i++) {
            input[i] = i * 0.75f - 1234.5f;
            poison[i] = Float.intBitsToFloat(0x7fc0dead);
        }
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            stream.write(src, WgpuTestSupport.floats(arena, input));
            stream.write(dst, WgpuTestSupport.floats(arena, poison));
            backend.memory().upload(info, WgpuTestSupport.ints(arena, n));

            stream.launch(addOne, LaunchDims.linear(n, 64), new Bindings(List.of(src, dst), info, 1));
            MemorySegment out = arena.allocate(bytes);
            stream.read(dst, out);

            float[] result = WgpuTestSupport.toFloats(out);
            float[] expected = new float[n];
            for (int i = 0; i < n; i++) {
                expected[i] = input[i] + 1.0f;
            }
            assertThat(result).containsExactly(expected);
        } finally {
            stream.close();
            backend.memory().free(block);
        }
    }

    @Test
    void a_grid_larger_than_the_device_dispatches_is_refused_at_the_call_naming_the_limit() {
        DeviceAllocation block = backend.memory().allocate(512);
        BackendStream stream = backend.openStream();
        try {
            DeviceSlice slice = new DeviceSlice(block, 0, 256);
            Bindings bindings = new Bindings(List.of(slice, slice), new DeviceSlice(block, 256, 4), 1);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> stream.launch(addOne, new LaunchDims(65_536, 1, 1, 64, 1, 1), bindings))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("65536x1x1")
                    .hasMessageContaining("maxComputeWorkgroupsPerDimension");
            stream.synchronize();
        } finally {
            stream.close();
            backend.memory().free(block);
        }
    }

    @Test
    void eager_launches_in_one_batch_see_each_others_results_in_order() {
        int n = 300;
        long bytes = n * 4L;
        DeviceAllocation a = backend.memory().allocate(bytes);
        DeviceAllocation b = backend.memory().allocate(bytes);
        DeviceAllocation i = backend.memory().allocate(4);
        DeviceSlice sa = new DeviceSlice(a, 0, bytes);
        DeviceSlice sb = new DeviceSlice(b, 0, bytes);
        DeviceSlice si = new DeviceSlice(i, 0, 4);
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            float[] zeros = new float[n];
            stream.write(sa, WgpuTestSupport.floats(arena, zeros));
            backend.memory().upload(si, WgpuTestSupport.ints(arena, n));
            int launches = 101; // more than one submission batch
            for (int k = 0; k < launches; k++) {
                boolean even = k % 2 == 0;
                stream.launch(
                        addOne, LaunchDims.linear(n, 64), new Bindings(List.of(even ? sa : sb, even ? sb : sa), si, 1));
            }
            MemorySegment out = arena.allocate(bytes);
            stream.read(sb, out);

            assertThat(WgpuTestSupport.toFloats(out)).containsOnly((float) launches);
        } finally {
            stream.close();
            backend.memory().free(a);
            backend.memory().free(b);
            backend.memory().free(i);
        }
    }

    @Test
    void an_upload_after_encoded_work_that_reads_the_same_bytes_does_not_change_what_that_work_saw() {
        int n = 64;
        long bytes = n * 4L;
        DeviceAllocation block = backend.memory().allocate(3 * 256L);
        DeviceSlice src = new DeviceSlice(block, 0, bytes);
        DeviceSlice dst = new DeviceSlice(block, 256, bytes);
        DeviceSlice info = new DeviceSlice(block, 512, 4);
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            float[] input = new float[n];
            java.util.Arrays.fill(input, 41f);
            stream.write(src, WgpuTestSupport.floats(arena, input));
            stream.write(dst, WgpuTestSupport.floats(arena, new float[n]));
            backend.memory().upload(info, WgpuTestSupport.ints(arena, n));
            stream.launch(addOne, LaunchDims.linear(n, 64), new Bindings(List.of(src, dst), info, 1));

            backend.memory().upload(info, WgpuTestSupport.ints(arena, 1)); // reuses the bytes the launch reads

            MemorySegment out = arena.allocate(bytes);
            stream.read(dst, out);
            assertThat(WgpuTestSupport.toFloats(out)).containsOnly(42f);
        } finally {
            stream.close();
            backend.memory().free(block);
        }
    }

    @Test
    void writes_and_reads_of_ragged_lengths_keep_the_neighbouring_bytes() {
        DeviceAllocation block = backend.memory().allocate(256);
        DeviceSlice whole = new DeviceSlice(block, 0, 16);
        BackendStream stream = backend.openStream();
        try (Arena arena = Arena.ofConfined()) {
            byte[] filler = new byte[16];
            java.util.Arrays.fill(filler, (byte) 0x55);
            stream.write(whole, arena.allocateFrom(ValueLayout.JAVA_BYTE, filler));

            stream.write(
                    new DeviceSlice(block, 0, 6),
                    arena.allocateFrom(ValueLayout.JAVA_BYTE, new byte[] {1, 2, 3, 4, 5, 6}));

            MemorySegment all = arena.allocate(16);
            stream.read(whole, all);
            assertThat(all.toArray(ValueLayout.JAVA_BYTE))
                    .containsExactly(1, 2, 3, 4, 5, 6, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55);
            MemorySegment three = arena.allocate(3);
            stream.read(new DeviceSlice(block, 0, 3), three);
            assertThat(three.toArray(ValueLayout.JAVA_BYTE)).containsExactly(1, 2, 3);
        } finally {
            stream.close();
            backend.memory().free(block);
        }
    }

    @Test
    void allocations_are_whole_multiples_of_the_256_byte_alignment() {
        DeviceAllocation small = backend.memory().allocate(1);
        DeviceAllocation odd = backend.memory().allocate(1000);
        try {
            assertThat(small.byteSize()).isEqualTo(256);
            assertThat(odd.byteSize()).isEqualTo(1024);
        } finally {
            backend.memory().free(small);
            backend.memory().free(odd);
            backend.memory().free(odd); // twice is harmless
        }
    }

    @Test
    void two_streams_on_two_threads_work_side_by_side() throws Exception {
        int n = 512;
        long bytes = n * 4L;
        java.util.concurrent.Callable<float[]> job = () -> {
            DeviceAllocation block = backend.memory().allocate(3 * 4096L);
            DeviceSlice a = new DeviceSlice(block, 0, bytes);
            DeviceSlice b = new DeviceSlice(block, 4096, bytes);
            DeviceSlice info = new DeviceSlice(block, 8192, 4);
            BackendStream stream = backend.openStream();
            try (Arena arena = Arena.ofConfined()) {
                stream.write(a, WgpuTestSupport.floats(arena, new float[n]));
                backend.memory().upload(info, WgpuTestSupport.ints(arena, n));
                for (int k = 0; k < 200; k++) {
                    boolean even = k % 2 == 0;
                    stream.launch(
                            addOne,
                            LaunchDims.linear(n, 64),
                            new Bindings(List.of(even ? a : b, even ? b : a), info, 1));
                    if (k % 50 == 49) {
                        MemorySegment probe = arena.allocate(bytes);
                        stream.read(even ? b : a, probe);
                        assertThat(WgpuTestSupport.toFloats(probe)).containsOnly(k + 1f);
                    }
                }
                MemorySegment out = arena.allocate(bytes);
                stream.read(a, out);
                return WgpuTestSupport.toFloats(out);
            } finally {
                stream.close();
                backend.memory().free(block);
            }
        };
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(2)) {
            var first = pool.submit(job);
            var second = pool.submit(job);
            assertThat(first.get(60, java.util.concurrent.TimeUnit.SECONDS)).containsOnly(200f);
            assertThat(second.get(60, java.util.concurrent.TimeUnit.SECONDS)).containsOnly(200f);
        }
    }
}
