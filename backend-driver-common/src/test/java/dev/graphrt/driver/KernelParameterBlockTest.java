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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@SuppressWarnings("restricted") // reads kernelParams the way the driver does
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class KernelParameterBlockTest {
    private static final long BASE = 0x7f00_0000_0000L;
    private final Arena arena = Arena.ofConfined();
    private final TestAllocation allocation = new TestAllocation(BASE, 1 << 20);

    /** A device block as a backend would describe it: a base address and a size. */
    private record TestAllocation(long pointer, long byteSize) implements DeviceAllocation {
        static long address(DeviceSlice slice) {
            if (!(slice.allocation() instanceof TestAllocation allocation)) {
                throw new IllegalArgumentException("slice " + slice + " does not belong to the test backend");
            }
            return allocation.pointer + slice.offset();
        }
    }

    private KernelParameterBlock block() {
        return new KernelParameterBlock(arena, TestAllocation::address);
    }

    @AfterEach
    void closeArena() {
        arena.close();
    }

    private DeviceSlice slice(long offset) {
        return new DeviceSlice(allocation, offset, 256);
    }

    /** What cuLaunchKernel reads: kernelParams[i] is a pointer to the value of parameter i. */
    private static long parameter(MemorySegment kernelParams, int index) {
        return kernelParams.getAtIndex(ADDRESS, index).reinterpret(Long.BYTES).get(JAVA_LONG, 0);
    }

    @Test
    void buffers_fill_the_slots_in_order_and_the_info_buffer_comes_last() {
        KernelParameterBlock block = block();
        Bindings bindings = new Bindings(List.of(slice(0), slice(256), slice(4096)), slice(8192), 3);

        MemorySegment params = block.pack(bindings);

        assertThat(parameter(params, 0)).isEqualTo(BASE);
        assertThat(parameter(params, 1)).isEqualTo(BASE + 256);
        assertThat(parameter(params, 2)).isEqualTo(BASE + 4096);
        assertThat(parameter(params, 3)).isEqualTo(BASE + 8192);
        assertThat(block.slot(3)).isEqualTo(BASE + 8192);
    }

    @Test
    void a_launch_without_info_words_passes_only_the_buffers() {
        KernelParameterBlock block = block();

        MemorySegment params = block.pack(new Bindings(List.of(slice(512), slice(1024)), null, 0));

        assertThat(parameter(params, 0)).isEqualTo(BASE + 512);
        assertThat(parameter(params, 1)).isEqualTo(BASE + 1024);
    }

    @Test
    void the_same_native_block_is_reused_across_launches() {
        KernelParameterBlock block = block();

        MemorySegment first = block.pack(new Bindings(List.of(slice(0)), slice(256), 1));
        MemorySegment second = block.pack(new Bindings(List.of(slice(512), slice(768), slice(1024)), null, 0));
        MemorySegment third = block.pack(new Bindings(List.of(), slice(2048), 4));

        assertThat(second.address()).isEqualTo(first.address());
        assertThat(third.address()).isEqualTo(first.address());
        assertThat(block.capacity()).isEqualTo(KernelParameterBlock.INITIAL_CAPACITY);
        assertThat(parameter(third, 0)).isEqualTo(BASE + 2048);
    }

    @Test
    void the_slot_pointers_never_move_between_launches() {
        KernelParameterBlock block = block();
        MemorySegment params = block.pack(new Bindings(List.of(slice(0), slice(256)), null, 0));
        long pointer0 = params.getAtIndex(ADDRESS, 0).address();
        long pointer1 = params.getAtIndex(ADDRESS, 1).address();

        block.pack(new Bindings(List.of(slice(4096), slice(8192)), null, 0));

        assertThat(params.getAtIndex(ADDRESS, 0).address()).isEqualTo(pointer0);
        assertThat(params.getAtIndex(ADDRESS, 1).address()).isEqualTo(pointer1);
        assertThat(pointer1 - pointer0).isEqualTo(Long.BYTES);
    }

    @Test
    void more_parameters_than_the_capacity_grow_the_block_once() {
        KernelParameterBlock block = new KernelParameterBlock(arena, TestAllocation::address, 2);
        List<DeviceSlice> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(slice(256L * i));
        }

        MemorySegment grown = block.pack(new Bindings(five, slice(8192), 2));
        MemorySegment again = block.pack(new Bindings(five.subList(0, 3), null, 0));

        assertThat(block.capacity()).isGreaterThanOrEqualTo(6);
        for (int i = 0; i < 5; i++) {
            assertThat(parameter(grown, i)).isEqualTo(BASE + 256L * i);
        }
        assertThat(parameter(grown, 5)).isEqualTo(BASE + 8192);
        assertThat(again.address()).isEqualTo(grown.address());
    }

    @Test
    void a_slice_the_address_resolver_refuses_fails_the_launch_before_the_driver_sees_it() {
        KernelParameterBlock block = block();
        DeviceAllocation foreign = () -> 4096;

        assertThatThrownBy(() -> block.pack(new Bindings(List.of(new DeviceSlice(foreign, 0, 256)), null, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not belong to the test backend");
    }

    @Test
    void packing_the_same_bindings_again_resolves_nothing_and_keeps_their_values() {
        int[] resolved = {0};
        KernelParameterBlock block = new KernelParameterBlock(arena, slice -> {
            resolved[0]++;
            return TestAllocation.address(slice);
        });
        Bindings bindings = new Bindings(List.of(slice(0), slice(512)), slice(1024), 2);
        block.pack(bindings);

        MemorySegment params = block.pack(bindings);

        assertThat(resolved[0]).as("two buffers and the info, once").isEqualTo(3);
        assertThat(parameter(params, 0)).isEqualTo(BASE);
        assertThat(parameter(params, 1)).isEqualTo(BASE + 512);
        assertThat(parameter(params, 2)).isEqualTo(BASE + 1024);
    }

    @Test
    void bindings_packed_again_after_others_get_their_own_values_back() {
        KernelParameterBlock block = block();
        Bindings first = new Bindings(List.of(slice(0), slice(256)), null, 0);
        Bindings second = new Bindings(List.of(slice(4096), slice(8192)), null, 0);
        block.pack(first);
        block.pack(second);

        MemorySegment params = block.pack(first);

        assertThat(parameter(params, 0)).isEqualTo(BASE);
        assertThat(parameter(params, 1)).isEqualTo(BASE + 256);
    }

    @Test
    void bindings_packed_again_after_the_block_grew_are_written_into_the_new_slots() {
        KernelParameterBlock block = new KernelParameterBlock(arena, TestAllocation::address, 2);
        Bindings small = new Bindings(List.of(slice(0), slice(256)), null, 0);
        block.pack(small);
        block.pack(new Bindings(List.of(slice(0), slice(256), slice(512)), slice(768), 3)); // grows the block

        MemorySegment params = block.pack(small);

        assertThat(params).isEqualTo(block.pointers());
        assertThat(parameter(params, 0)).isEqualTo(BASE);
        assertThat(parameter(params, 1)).isEqualTo(BASE + 256);
    }
}
