package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** A rebind finds the launches of a slice through the index, and carries the index over to what it patched. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class LaunchIndexTest {
    private static final DeviceAllocation BLOCK = () -> 4096;
    private static final DeviceSlice A = new DeviceSlice(BLOCK, 0, 256);
    private static final DeviceSlice B = new DeviceSlice(BLOCK, 256, 256);
    private static final DeviceSlice C = new DeviceSlice(BLOCK, 512, 256);
    private static final FakeBackend.Kernel KERNEL = new FakeBackend.Kernel("k", OptionalInt.empty());

    private static RecordedLaunch launch(DeviceSlice... buffers) {
        return new RecordedLaunch(KERNEL, LaunchDims.linear(64, 64), new Bindings(List.of(buffers), null, 0));
    }

    private final RecordedLaunches recording =
            new RecordedLaunches(List.of(launch(A, B), launch(B, B), launch(C, A), launch(B, C)));

    @Test
    void each_slice_names_the_launches_that_pass_it_once_each_in_order() {
        LaunchIndex index = LaunchIndex.of(recording);

        assertThat(index.launchesOf(A)).containsExactly(0, 2);
        assertThat(index.launchesOf(B)).containsExactly(0, 1, 3);
        assertThat(index.launchesOf(C)).containsExactly(2, 3);
        assertThat(index.launchesOf(new DeviceSlice(BLOCK, 768, 256))).isEmpty();
        assertThat(index.describes(recording)).isTrue();
        assertThat(index.describes(new RecordedLaunches(recording.launches())))
                .as("an equal copy")
                .isFalse();
    }

    @Test
    void a_rebind_patches_only_the_launches_of_its_slice_and_the_moved_index_matches_a_fresh_one() {
        LaunchIndex index = LaunchIndex.of(recording);

        GraphRebinding rebinding = GraphRebinding.of(recording, index, A, C);
        LaunchIndex moved = index.moved(rebinding.patched(), A, C);

        assertThat(rebinding.changed()).containsExactly(0, 2);
        assertThat(rebinding.patched().launches().get(0).bindings().buffers()).containsExactly(C, B);
        assertThat(rebinding.patched().launches().get(2).bindings().buffers()).containsExactly(C, C);
        assertThat(rebinding.patched().launches().get(1))
                .isSameAs(recording.launches().get(1));
        LaunchIndex fresh = LaunchIndex.of(rebinding.patched());
        for (DeviceSlice slice : List.of(A, B, C)) {
            assertThat(moved.launchesOf(slice)).as("%s", slice).containsExactly(fresh.launchesOf(slice));
        }
        assertThat(moved.describes(rebinding.patched())).isTrue();
    }

    @Test
    void a_slice_no_launch_passes_changes_nothing() {
        GraphRebinding rebinding =
                GraphRebinding.of(recording, LaunchIndex.of(recording), new DeviceSlice(BLOCK, 768, 256), A);

        assertThat(rebinding.changed()).isEmpty();
        assertThat(rebinding.patched()).isSameAs(recording);
    }
}
