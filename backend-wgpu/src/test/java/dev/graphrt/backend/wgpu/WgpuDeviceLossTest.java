package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** A lost device reaches every stream and makes later work fail fast; uses Dawn's wgpuDeviceForceLoss. */
@SuppressWarnings("restricted")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuDeviceLossTest {

    @Test
    void a_lost_device_is_reported_on_every_stream_and_later_work_fails_fast() throws Throwable {
        try (WgpuBackend backend = WgpuTestSupport.open()) {
            Optional<MemorySegment> forceLoss = SymbolLookup.libraryLookup(NativeLibrary.loadedPath(), Arena.global())
                    .find("wgpuDeviceForceLoss");
            Assumptions.assumeTrue(forceLoss.isPresent(), "this webgpu library has no wgpuDeviceForceLoss (not Dawn)");
            CompiledKernel addOne = backend.compiler().compile(WgpuTestSupport.ADD_ONE);
            DeviceAllocation block = backend.memory().allocate(1024);
            Bindings bindings = new Bindings(List.of(new DeviceSlice(block, 0, 256), new DeviceSlice(block, 256, 256)),
                    new DeviceSlice(block, 512, 4), 1);
            BackendStream first = backend.openStream();
            BackendStream second = backend.openStream();

            MethodHandle force = Linker.nativeLinker().downcallHandle(forceLoss.get(),
                    FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, WebGpuHeader.STRING_VIEW));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment message = arena.allocate(WebGpuHeader.STRING_VIEW);
                message.set(ADDRESS, 0, arena.allocateFrom("lost on purpose by a test"));
                message.set(JAVA_LONG, 8, WebGpuHeader.STRLEN);
                WgpuDevice device = backend.nativeDevice();
                device.lock.lock();
                try {
                    force.invokeExact(device.device, 1, message);
                } finally {
                    device.lock.unlock();
                }
            }

            assertThat(first.drainErrors()).singleElement().isInstanceOfSatisfying(DriverException.class,
                    e -> assertThat(e.getMessage()).contains("lost on purpose"));
            assertThat(second.drainErrors()).singleElement().isInstanceOf(DriverException.class);
            assertThatThrownBy(() -> first.launch(addOne, LaunchDims.linear(64, 64), bindings))
                    .isInstanceOf(DriverException.class)
                    .hasMessageContaining("lost");
            assertThatThrownBy(first::synchronize).isInstanceOf(DriverException.class);
            first.close();
            second.close();
            backend.memory().free(block);
        }
    }
}
