package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import org.junit.jupiter.api.Test;

/**
 * Checked mode ({@code graphrt.checked}): a kernel writing past its buffer is named (buffer, offset, last
 * launches), or fails the kernel, or the backend keeps the writes inside; either way the neighbouring buffer
 * stays intact and the overrun is reported once.
 *
 * <p>Group 22 of {@link CaptureConformanceKit}.
 */
public abstract class CheckedModeGroup extends KitFixture {
    @Test
    void a_kernel_writing_past_its_buffer_is_named_in_checked_mode_or_the_backend_keeps_it_inside() {
        GraphRuntime checked = openCheckedRuntime();
        try (checked;
                GpuStream s = checked.openStream()) {
            assertThat(checked.capabilities()).isNotNull();
            Kernel overrun = checked.compile(KitKernels.OVERRUN);
            Buffer src = s.upload(KitKernels.pattern(16, 3));
            Buffer small = s.allocate(64);
            Buffer neighbour = s.upload(KitKernels.pattern(64, 4));
            s.launch(
                    overrun,
                    LaunchDims.linear(48, BLOCK),
                    KernelArgs.of(src, small).info(16, 48));
            Throwable failure = catchThrowable(s::synchronize);
            if (failure instanceof dev.graphrt.api.BufferOverrunException named) {
                assertThat(named.buffer()).isEqualTo(small.toString());
                assertThat(named.offset()).as("the first byte past its end").isEqualTo(64);
                assertThat(named.lastLaunches()).anyMatch(launch -> launch.startsWith("overrun"));
            } else if (failure != null) {
                assertThat(failure)
                        .as("a backend that stops the write fails the kernel")
                        .isInstanceOf(dev.graphrt.api.GraphRTException.class);
            } else {
                assertThat(s.readInts(small))
                        .as("the backend kept the writes inside the buffer")
                        .containsOnly(7);
            }
            assertThat(s.readInts(neighbour))
                    .as("the guard kept the neighbour intact")
                    .isEqualTo(KitKernels.pattern(64, 4));
            assertThatCode(s::synchronize).as("an overrun is reported once").doesNotThrowAnyException();
        }
    }
}
