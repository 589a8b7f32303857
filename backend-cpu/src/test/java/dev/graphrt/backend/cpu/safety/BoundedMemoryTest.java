package dev.graphrt.backend.cpu.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.backend.cpu.CpuBackendProvider;
import dev.graphrt.spi.BackendConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Issue items 7-9: pools with a budget, a cpu device with a ceiling, back-pressure on queued writes. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class BoundedMemoryTest {
    private static final long MIB = 1 << 20;

    @Test
    void mixed_size_allocate_and_close_cycles_keep_reserved_memory_within_the_live_set_plus_the_reserve() {
        long reserve = 16 * MIB;
        // 1 MiB pages for the small size classes, so their pages (one per class used) stay a small, known share
        try (Rig rig = new Rig(RuntimeOptions.defaults().pool(MIB, 64 * 1024).poolReserve(reserve))) {
            GpuStream stream = rig.runtime.openStream();
            Random random = new Random(42);
            ArrayDeque<Buffer> live = new ArrayDeque<>();
            long maxReserved = 0;
            for (int cycle = 0; cycle < 600; cycle++) {
                long bytes = MIB + random.nextLong(2 * MIB + 1); // 1 to 3 MiB: nearly every size distinct
                if (cycle % 7 == 0) {
                    bytes = 64 + random.nextInt(4096); // and some small ones from the size classes
                }
                live.add(stream.allocate(bytes));
                if (live.size() > 4) {
                    live.poll().close();
                }
                maxReserved = Math.max(maxReserved, rig.runtime.memoryStats().reservedBytes());
            }
            long bound = 4 * 3 * MIB + reserve + 3 * MIB + 8 * MIB; // live set + reserve + one more + class pages
            assertThat(maxReserved)
                    .as("reserved never exceeds %d bytes (it reached 1.26 GB before the budget)", bound)
                    .isLessThanOrEqualTo(bound);
        }
    }

    @Test
    void buffers_closed_while_their_launches_are_in_flight_count_against_the_reserve_without_a_synchronize() {
        long reserve = 16 * MIB;
        try (Rig rig = new Rig(RuntimeOptions.defaults().poolReserve(reserve))) {
            GpuStream stream = rig.runtime.openStream();
            Random random = new Random(43);
            ArrayDeque<Buffer> live = new ArrayDeque<>();
            Buffer source = stream.allocate(3 * MIB);
            long maxReserved = 0;
            for (int cycle = 0; cycle < 600; cycle++) {
                long bytes = MIB + random.nextLong(2 * MIB + 1);
                Buffer buffer = stream.allocate(bytes);
                int n = (int) (bytes / 4);
                stream.launch(
                        rig.addOne,
                        dev.graphrt.api.LaunchDims.linear(n, 256),
                        KernelArgs.of(source, buffer).info(n)); // work in flight holds it past its close
                live.add(buffer);
                if (live.size() > 3) {
                    live.poll().close();
                }
                maxReserved = Math.max(maxReserved, rig.runtime.memoryStats().reservedBytes());
            }
            stream.synchronize();
            long bound = 3 * MIB + 4 * 3 * MIB + reserve + 3 * MIB + 8 * MIB; // source, live set, reserve, one more
            assertThat(maxReserved).as("reserved never exceeds %d bytes", bound).isLessThanOrEqualTo(bound);
        }
    }

    @Test
    void a_full_device_is_trimmed_and_the_allocation_retried_once_before_out_of_memory() {
        Map<String, String> ceiling = Map.of("cpu.threads", "1", "cpu.memoryBytes", String.valueOf(64 * MIB));
        try (Rig rig = new Rig(RuntimeOptions.defaults(), ceiling)) {
            GpuStream stream = rig.runtime.openStream();
            stream.allocate(24 * MIB).close();
            stream.allocate(25 * MIB).close();
            stream.synchronize();
            assertThat(rig.runtime.memoryStats().reservedBytes())
                    .as("kept for reuse")
                    .isGreaterThanOrEqualTo(49 * MIB);

            Buffer big = stream.allocate(30 * MIB); // fits only once the free ones went back

            assertThat(big.byteSize()).isEqualTo(30 * MIB);
            assertThat(rig.backend.liveBytes()).isLessThanOrEqualTo(64 * MIB);
            assertThatThrownBy(() -> stream.allocate(40 * MIB))
                    .isInstanceOf(DeviceOutOfMemoryException.class)
                    .hasMessageContaining("cpu.memoryBytes");
        }
    }

    @Test
    void the_cpu_backend_has_a_ceiling_by_default_and_a_request_beyond_it_is_out_of_memory() {
        var backend = new CpuBackendProvider().open(new BackendConfig(0, Map.of()));
        try {
            assertThat(backend.device().memoryBytes())
                    .as("physical memory or MaxDirectMemorySize")
                    .isPositive();
        } finally {
            backend.close();
        }
        Map<String, String> ceiling = Map.of("cpu.threads", "1", "cpu.memoryBytes", String.valueOf(32 * MIB));
        try (Rig rig = new Rig(RuntimeOptions.defaults(), ceiling)) {
            GpuStream stream = rig.runtime.openStream();
            assertThatThrownBy(() -> stream.allocate(48 * MIB))
                    .isInstanceOf(DeviceOutOfMemoryException.class)
                    .hasMessageContaining("bytes")
                    .hasMessageContaining(String.valueOf(32 * MIB));
            Buffer fits = stream.allocate(20 * MIB);
            assertThatThrownBy(() -> stream.allocate(20 * MIB)).isInstanceOf(DeviceOutOfMemoryException.class);
            fits.close();
            assertThat(stream.allocate(20 * MIB).byteSize())
                    .as("usable again after the close")
                    .isEqualTo(20 * MIB);
        }
    }

    @Test
    void writes_queued_behind_a_busy_stream_wait_once_the_staging_bound_is_reached() {
        long limit = 8 * MIB;
        try (Rig rig = new Rig(RuntimeOptions.defaults().stagingLimit(limit).waitTimeout(Duration.ofSeconds(30)))) {
            GpuStream stream = rig.runtime.openStream();
            var slow = rig.hostKernel("slow", () -> Rig.sleep(200));
            Buffer target = stream.allocate(MIB);
            stream.launch(slow, Rig.ONCE, KernelArgs.of());
            float[] data = new float[(int) (MIB / 4)];
            for (int i = 0; i < 100; i++) {
                data[0] = i;
                stream.write(target, data);
            }
            assertThat(stream.readFloats(target)[0]).as("the last write wins").isEqualTo(99f);
            assertThat(rig.backend.maxWrittenBetweenWaits())
                    .as("bytes staged behind the device at once")
                    .isLessThanOrEqualTo(limit + MIB);
        }
    }

    @Test
    void a_staging_copy_the_jvm_cannot_hold_is_a_typed_out_of_memory_error_not_a_raw_one() {
        try (Rig rig = new Rig()) {
            GpuStream stream = rig.runtime.openStream();
            Buffer target = stream.allocate(MIB);
            rig.backend.failWritesWithOutOfMemory(true);
            assertThatThrownBy(() -> stream.write(target, new float[16]))
                    .isInstanceOf(DeviceOutOfMemoryException.class)
                    .hasMessageContaining("stagingBytes")
                    .hasCauseInstanceOf(OutOfMemoryError.class);
            rig.backend.failWritesWithOutOfMemory(false);
            stream.write(target, new float[] {1, 2});
            assertThat(stream.readFloats(target)[1]).isEqualTo(2f);
        }
    }
}
