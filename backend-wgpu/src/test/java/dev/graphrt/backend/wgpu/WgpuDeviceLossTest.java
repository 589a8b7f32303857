package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** A lost device reaches every stream and makes later work fail fast; reported as DeviceLostException; uses Dawn's wgpuDeviceForceLoss. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuDeviceLossTest {

    @Test
    void a_lost_device_is_reported_on_every_stream_and_later_work_fails_fast() throws Throwable {
        try (WgpuBackend backend = WgpuTestSupport.open()) {
            CompiledKernel addOne = backend.compiler().compile(WgpuTestSupport.ADD_ONE);
            DeviceAllocation block = backend.memory().allocate(1024);
            Bindings bindings = new Bindings(
                    List.of(new DeviceSlice(block, 0, 256), new DeviceSlice(block, 256, 256)),
                    new DeviceSlice(block, 512, 4),
                    1);
            BackendStream first = backend.openStream();
            BackendStream second = backend.openStream();

            WgpuTestSupport.forceLoss(backend, "lost on purpose by a test");

            assertThat(first.drainErrors())
                    .singleElement()
                    .isInstanceOfSatisfying(
                            DeviceLostException.class,
                            e -> assertThat(e.getMessage()).contains("lost on purpose"));
            assertThat(second.drainErrors()).singleElement().isInstanceOf(DeviceLostException.class);
            assertThatThrownBy(() -> first.launch(addOne, LaunchDims.linear(64, 64), bindings))
                    .isInstanceOf(DeviceLostException.class)
                    .hasMessageContaining("lost earlier");
            assertThatThrownBy(first::synchronize).isInstanceOf(DeviceLostException.class);
            first.close();
            second.close();
            backend.memory().free(block);
        }
    }
}
