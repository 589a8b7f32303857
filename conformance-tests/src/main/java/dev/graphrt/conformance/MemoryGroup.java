package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.Graph;
import dev.graphrt.api.MemoryStats;
import org.junit.jupiter.api.Test;

/**
 * A graph pins exactly the slices its window touched: the pool grows by that much, more warm-ups pin no more, and
 * closing the graph gives it all back.
 *
 * <p>Group 13 of {@link CaptureConformanceKit}.
 */
public abstract class MemoryGroup extends KitFixture {
    private Graph captureWithTemporaries(Buffer in, Buffer out, int warmups) {
        return stream.capture(CaptureOptions.defaults().warmups(warmups), s -> {
            try (Buffer t1 = s.allocate(BYTES)) {
                launch(s, addOne, in, t1);
                try (Buffer t2 = s.allocate(2 * BYTES)) {
                    launch(s, mulTwo, t1, t2);
                    launch(s, addOne, t2, out);
                }
            }
        });
    }

    @Test
    void pinned_bytes_equal_the_slices_the_window_touched_and_do_not_grow_with_warm_ups() {
        Buffer in = upload(KitKernels.pattern(N, 24));
        Buffer out = poisoned();
        launch(stream, addOne, in, out);
        launch(stream, mulTwo, in, out);
        stream.synchronize();
        runtime.trim();
        MemoryStats before = runtime.memoryStats();

        Graph one = captureWithTemporaries(in, out, 1);
        MemoryStats during = runtime.memoryStats();
        long pinned = one.info().pinnedBytes();
        assertThat(pinned).isGreaterThanOrEqualTo(3 * BYTES);
        long grownAndStillFree = during.persistentFreeBytes() - before.persistentFreeBytes();
        assertThat(pinned)
                .as("the window's slices are exactly what the pool grew by, less what it left free")
                .isEqualTo(during.reservedBytes() - before.reservedBytes() - grownAndStillFree);
        assertThat(during.pinnedPerGraph()).containsEntry(one.id(), pinned);
        one.close();
        stream.synchronize();
        runtime.trim();

        Graph three = captureWithTemporaries(in, out, 3);
        assertThat(three.info().pinnedBytes()).as("3 warm-ups pin what 1 pins").isEqualTo(pinned);
        assertThat(runtime.memoryStats().reservedBytes()).isEqualTo(during.reservedBytes());
        three.replay();
        assertThat(read(out))
                .isEqualTo(KitKernels.addOne(KitKernels.mulTwo(KitKernels.addOne(KitKernels.pattern(N, 24)))));
        three.close();
        stream.synchronize();
        runtime.trim();
        MemoryStats after = runtime.memoryStats();
        assertThat(after.reservedBytes()).as("back to the pre-capture figure").isEqualTo(before.reservedBytes());
        assertThat(after.pinnedBytes()).isZero();
        assertThat(after.pinnedPerGraph()).isEmpty();
    }
}
