package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.BlockShape;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.Graph;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.LaunchLimits;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The largest launch a device takes, both ways: the backend declares its device's limits, a launch one past any of
 * them is refused at the call (naming the field, its value and the limit) with nothing enqueued and the stream
 * healthy, also inside a capture, which goes on; a launch exactly at them runs and computes exactly. A kernel whose
 * source fixes its block (WGSL's {@code @workgroup_size}) refuses a launch with another block, naming both.
 *
 * <p>Group 30 of {@link CaptureConformanceKit}.
 */
public abstract class LaunchLimitsGroup extends KitFixture {
    private LaunchLimits limits() {
        return runtime.device().limits();
    }

    /** The block the kit kernels are launched with here: the one they fix, else the kit's. */
    private BlockShape kitBlock() {
        return addOne.requiredBlock().orElse(new BlockShape(BLOCK, 1, 1));
    }

    /** Enough blocks of the kit's block in X to cover {@code N}, with {@code gridY} and {@code gridZ} as given. */
    private LaunchDims covering(int gridY, int gridZ, BlockShape block) {
        int gridX = (N + block.x() - 1) / block.x();
        return new LaunchDims(gridX, gridY, gridZ, block.x(), block.y(), block.z());
    }

    private void assertRefusedAndHarmless(LaunchDims dims, String... named) {
        int[] x = KitKernels.pattern(N, 301);
        Buffer in = upload(x);
        Buffer out = poisoned();

        assertThatThrownBy(
                        () -> stream.launch(addOne, dims, KernelArgs.of(in, out).info(N)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(named);

        assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void the_backend_declares_the_launch_limits_of_its_device() {
        assertThat(limits()).as("an opened device declares its limits").isNotEqualTo(LaunchLimits.UNDECLARED);
        assertThat(limits().maxThreadsPerBlock())
                .as("the kit's blocks fit")
                .isGreaterThanOrEqualTo(kitBlock().x());
    }

    @Test
    void a_grid_one_past_the_limit_in_y_or_z_is_refused_at_the_call_naming_the_field_the_value_and_the_limit() {
        LaunchLimits l = limits();
        assumeTrue(l.maxGridY() < Integer.MAX_VALUE, "the device declares no grid limit in Y below 2^31-1");
        assertRefusedAndHarmless(
                covering(l.maxGridY() + 1, 1, kitBlock()),
                "gridY",
                String.valueOf(l.maxGridY() + 1),
                String.valueOf(l.maxGridY()));
        if (l.maxGridZ() < Integer.MAX_VALUE) {
            assertRefusedAndHarmless(
                    covering(1, l.maxGridZ() + 1, kitBlock()),
                    "gridZ",
                    String.valueOf(l.maxGridZ() + 1),
                    String.valueOf(l.maxGridZ()));
        }
    }

    @Test
    void a_block_one_past_the_limit_in_z_or_in_threads_is_refused_at_the_call() {
        LaunchLimits l = limits();
        if (l.maxBlockZ() < 1024) {
            LaunchDims tooDeep = new LaunchDims(N, 1, 1, 1, 1, l.maxBlockZ() + 1);
            assertRefusedAndHarmless(
                    tooDeep, "blockZ", String.valueOf(l.maxBlockZ() + 1), String.valueOf(l.maxBlockZ()));
        }
        if (l.maxThreadsPerBlock() < 1024) { // 1,024 is what LaunchDims itself allows
            int y = Math.min(l.maxBlockY(), 1024 / Math.min(l.maxBlockX(), 1024));
            LaunchDims tooMany = new LaunchDims(N, 1, 1, Math.min(l.maxBlockX(), 1024), y, 1);
            assumeTrue(
                    (long) tooMany.blockX() * tooMany.blockY() > l.maxThreadsPerBlock(),
                    "no block within the per-dimension limits exceeds the thread limit");
            assertRefusedAndHarmless(tooMany, "threads", String.valueOf(l.maxThreadsPerBlock()));
        }
    }

    @Test
    void a_launch_exactly_at_the_grid_limit_in_y_runs_and_computes_exactly() {
        LaunchLimits l = limits();
        assumeTrue(l.maxGridY() < Integer.MAX_VALUE, "the device declares no grid limit in Y below 2^31-1");
        int gridY = l.maxGridY(); // exactly the declared limit: a backend that overstates it fails here
        int[] x = KitKernels.pattern(N, 302);
        Buffer in = upload(x);
        Buffer out = poisoned();

        stream.launch(
                addOne, covering(gridY, 1, kitBlock()), KernelArgs.of(in, out).info(N));

        assertThat(read(out)).as("every block in Y writes the same words").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void a_launch_exactly_at_the_block_limit_in_z_runs_where_the_kernel_lets_the_launch_choose_its_block() {
        assumeTrue(addOne.requiredBlock().isEmpty(), "the kernel fixes its block (its @workgroup_size)");
        LaunchLimits l = limits();
        int z = Math.min(l.maxBlockZ(), l.maxThreadsPerBlock());
        int xThreads = Math.max(1, Math.min(l.maxBlockX(), l.maxThreadsPerBlock() / z));
        int[] x = KitKernels.pattern(N, 303);
        Buffer in = upload(x);
        Buffer out = poisoned();

        stream.launch(
                addOne,
                covering(1, 1, new BlockShape(xThreads, 1, z)),
                KernelArgs.of(in, out).info(N));

        assertThat(read(out)).as("threads in Z repeat the same words").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void a_refusal_inside_a_capture_records_nothing_and_the_capture_goes_on() {
        LaunchLimits l = limits();
        assumeTrue(l.maxGridY() < Integer.MAX_VALUE, "the device declares no grid limit in Y below 2^31-1");

        Graph graph = assertRefusalsInsideACaptureRecordNothing(
                304,
                (mid, out) -> assertThatThrownBy(() -> stream.launch(
                                mulTwo,
                                covering(l.maxGridY() + 1, 1, kitBlock()),
                                KernelArgs.of(mid, out).info(N)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("gridY"));

        assertThat(graph.info().nodeCount())
                .as("the refused launch was not recorded")
                .isEqualTo(2);
    }

    @Test
    void a_kernel_that_fixes_its_block_refuses_a_launch_with_another_block_naming_both() {
        Optional<BlockShape> fixed = addOne.requiredBlock();
        assumeTrue(fixed.isPresent(), "the kernel lets the launch choose its block");
        BlockShape block = fixed.get();
        int other = block.x() == 64 ? 128 : 64;
        LaunchDims wrong = LaunchDims.linear(N, other);

        assertRefusedAndHarmless(wrong, block.toString(), other + "x1x1", "@workgroup_size");
    }
}
