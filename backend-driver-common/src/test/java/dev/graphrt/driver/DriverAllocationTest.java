package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@SuppressWarnings("restricted") // reads kernelParams the way the driver does
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DriverAllocationTest {
    private static final long BASE = 0x7f00_0000_0000L;
    /** The context that allocated the blocks here; these tests never make it current. */
    private static final DriverContext OWNER = new DriverContext() {
        @Override
        public DriverNames names() {
            return new DriverNames("cuda", "cuda", HardwareGraphErrors.withNames(code -> "E" + code));
        }

        @Override
        public void makeCurrent() {
            throw new AssertionError("not made current in these tests");
        }
    };

    private final DriverAllocation allocation = new DriverAllocation("cuda", OWNER, BASE, 1 << 20);

    @Test
    void a_slice_address_is_the_block_pointer_plus_the_offset() {
        assertThat(DriverAllocation.address(new DeviceSlice(allocation, 4096, 256), "cuda"))
                .isEqualTo(BASE + 4096);
    }

    @Test
    void a_slice_of_another_backend_is_refused() {
        DeviceAllocation foreign = () -> 4096;

        assertThatThrownBy(() -> DriverAllocation.address(new DeviceSlice(foreign, 0, 256), "cuda"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not belong to the cuda backend");
    }

    @Test
    void a_block_of_another_driver_backend_is_refused() {
        DeviceAllocation hip = new DriverAllocation("hip", OWNER, BASE, 4096);

        assertThatThrownBy(() -> DriverAllocation.address(new DeviceSlice(hip, 0, 256), "cuda"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not belong to the cuda backend");
    }

    @Test
    void the_shared_parameter_block_packs_cuda_device_addresses() {
        try (Arena arena = Arena.ofConfined()) {
            KernelParameterBlock block =
                    new KernelParameterBlock(arena, slice -> DriverAllocation.address(slice, "cuda"));

            MemorySegment params = block.pack(new Bindings(
                    List.of(new DeviceSlice(allocation, 256, 256)), new DeviceSlice(allocation, 512, 4), 1));

            assertThat(params.getAtIndex(ADDRESS, 0).reinterpret(8).get(JAVA_LONG, 0))
                    .isEqualTo(BASE + 256);
            assertThat(params.getAtIndex(ADDRESS, 1).reinterpret(8).get(JAVA_LONG, 0))
                    .isEqualTo(BASE + 512);
        }
    }
}
