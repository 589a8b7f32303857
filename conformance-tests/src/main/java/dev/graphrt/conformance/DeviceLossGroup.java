package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelArgs;
import org.junit.jupiter.api.Test;

/**
 * A lost device loses only its runtime, where {@code DEVICE_LOSS_RECOVERY} is declared: the kit loses it on
 * purpose ({@link CaptureConformanceKit#loseDevice()}), every later call says so, and a new runtime on the same
 * device computes. Where it is not declared, ordinary failures never lose the runtime.
 *
 * <p>Group 21 of {@link CaptureConformanceKit}.
 */
public abstract class DeviceLossGroup extends KitFixture {
    @Test
    void a_lost_device_loses_only_its_runtime_and_a_new_runtime_computes_or_ordinary_failures_lose_nothing() {
        int[] x = KitKernels.pattern(N, 47);
        if (!declares(Capability.DEVICE_LOSS_RECOVERY)) {
            // No trap here (on NVIDIA it poisons the whole process); an ordinary failure must not lose the runtime.
            Buffer in = upload(x);
            Buffer out = poisoned();
            assertThatThrownBy(
                            () -> stream.launch(addOne, DIMS, KernelArgs.of(in).info(N)))
                    .isInstanceOf(IllegalArgumentException.class);
            launch(stream, addOne, in, out);
            assertThat(read(out))
                    .as("the runtime is not lost by ordinary failures")
                    .isEqualTo(KitKernels.addOne(x));
            return;
        }
        Buffer in = upload(x);
        Buffer out = poisoned();
        launch(stream, addOne, in, out);
        loseDevice();
        Throwable lost = catchThrowable(stream::synchronize);
        assertThat(lost).as("the trap surfaces at the next sync").isInstanceOf(DeviceLostException.class);
        assertThatThrownBy(() -> stream.allocate(BYTES))
                .isInstanceOf(DeviceLostException.class)
                .hasMessageContaining("lost earlier");
        assertThatThrownBy(runtime::openStream).isInstanceOf(DeviceLostException.class);
        GraphRuntime lostRuntime = runtime;
        GpuStream lostStream = stream;
        in.close();
        out.close();
        lostStream.close();
        lostRuntime.close();

        runtime = openRuntime();
        stream = runtime.openStream();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        Buffer again = track(stream.upload(x));
        Buffer result = track(stream.upload(KitKernels.poison(N)));
        launch(stream, addOne, again, result);
        assertThat(stream.readInts(result))
                .as("a new runtime on the same device works")
                .isEqualTo(KitKernels.addOne(x));
    }
}
