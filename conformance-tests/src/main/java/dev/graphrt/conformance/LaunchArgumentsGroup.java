package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.KernelArgs;
import org.junit.jupiter.api.Test;

/**
 * A launch whose buffers do not match the kernel's parameters is refused at the call, with the one message every
 * backend gives word for word, and nothing runs; inside a capture nothing is recorded and the capture goes on.
 *
 * <p>Group 20 of {@link CaptureConformanceKit}.
 */
public abstract class LaunchArgumentsGroup extends KitFixture {
    /** The one refusal every backend gives, pinned word for word (the kit kernels take (src, dst, info)). */
    private static String refusal(String kernel, int buffers, boolean info) {
        int passed = buffers + (info ? 1 : 0);
        return "kernel '" + kernel + "' takes 3 parameters, but the launch passes " + passed + ": " + buffers
                + " buffer" + (buffers == 1 ? "" : "s") + (info ? " + the info buffer" : ", no info buffer")
                + " (buffers in order, then the info buffer when the launch has info words; docs/kernels.md)";
    }

    private void assertRefused(GpuStream s, KernelArgs args, String message) {
        assertThatThrownBy(() -> s.launch(addOne, DIMS, args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void too_few_buffers_are_refused_at_the_call_naming_the_kernel_and_both_counts_and_nothing_runs() {
        int[] x = KitKernels.pattern(N, 201);
        Buffer in = upload(x);
        Buffer out = poisoned();

        assertRefused(stream, KernelArgs.of(in).info(N), refusal("add_one", 1, true));

        assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void too_many_buffers_are_refused_rather_than_read_as_the_info_buffer() {
        int[] x = KitKernels.pattern(N, 202);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Buffer extra = upload(KitKernels.pattern(N, 203));

        assertRefused(stream, KernelArgs.of(in, out, extra).info(N), refusal("add_one", 3, true));

        assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void the_right_buffers_without_the_info_buffer_are_refused() {
        int[] x = KitKernels.pattern(N, 204);
        Buffer in = upload(x);
        Buffer out = poisoned();

        assertRefused(stream, KernelArgs.of(in, out), refusal("add_one", 2, false));

        assertThat(read(out)).as("nothing was enqueued").isEqualTo(KitKernels.poison(N));
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream still computes").isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void a_refusal_inside_a_capture_records_nothing_and_leaves_the_capture_usable() {
        assertRefusalsInsideACaptureRecordNothing(205, (mid, out) -> {
            assertRefused(stream, KernelArgs.of(mid).info(N), refusal("add_one", 1, true));
            assertRefused(stream, KernelArgs.of(mid, out, mid).info(N), refusal("add_one", 3, true));
        });
        assertRecapturable();
    }
}
