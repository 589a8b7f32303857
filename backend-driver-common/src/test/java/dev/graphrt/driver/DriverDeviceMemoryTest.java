package dev.graphrt.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * A synchronous upload from pageable memory may return before its DMA reached the device (the CUDA driver's
 * documented behaviour for {@code cuMemcpyHtoD}), and a kernel on a non-blocking stream is not ordered after it;
 * from pinned memory the copy is complete on return. So every upload goes through pinned memory.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DriverDeviceMemoryTest {
    private static final long BASE = 0x7f00_0000_0000L;

    /** Device memory of one block at {@link #BASE}, written by copies from the host whose sources it notes. */
    private static final class RecordingDriver implements DeviceMemoryDriver {
        final Arena arena = Arena.ofShared();
        final MemorySegment device = arena.allocate(1 << 20, 256);
        final FakePinnedMemory host = new FakePinnedMemory();
        final List<MemorySegment> pinned = host.allocated;
        final List<MemorySegment> freedPinned = host.freed;
        final List<MemorySegment> sources = new ArrayList<>();

        @Override
        public long allocate(long bytes) {
            return BASE;
        }

        @Override
        public void free(long pointer) {}

        @Override
        public void copyToDevice(long address, MemorySegment src, long bytes) {
            sources.add(src);
            MemorySegment.copy(src, 0, device, address - BASE, bytes);
        }

        @Override
        public MemorySegment allocatePinned(long bytes) {
            return host.allocate(bytes);
        }

        @Override
        public void freePinned(MemorySegment block) {
            host.free(block);
        }

        boolean isPinned(MemorySegment segment) {
            return pinned.stream()
                    .anyMatch(block -> block.address() <= segment.address()
                            && segment.address() + segment.byteSize() <= block.address() + block.byteSize());
        }
    }

    private static final DriverContext CONTEXT = new DriverContext() {
        @Override
        public DriverNames names() {
            return new DriverNames("cuda", "cuda", HardwareGraphErrors.withNames(code -> "E" + code));
        }

        @Override
        public void makeCurrent() {}
    };

    private final RecordingDriver driver = new RecordingDriver();
    private final DriverDeviceMemory memory = new DriverDeviceMemory(CONTEXT, driver);

    @AfterEach
    void close() {
        driver.host.close();
        driver.arena.close();
    }

    private static int[] pattern(int words) {
        return IntStream.range(0, words).map(i -> i * 7919 + 13).toArray();
    }

    private int[] deviceWords(long offset, int words) {
        return driver.device.asSlice(offset, words * 4L).toArray(ValueLayout.JAVA_INT);
    }

    @Test
    void an_upload_from_the_heap_reaches_the_driver_from_pinned_memory_only() {
        DeviceAllocation block = memory.allocate(1 << 20);
        int[] words = pattern(300);

        memory.upload(new DeviceSlice(block, 4096, 1200), MemorySegment.ofArray(words));

        assertThat(driver.sources).isNotEmpty().allMatch(driver::isPinned);
        assertThat(deviceWords(4096, 300)).isEqualTo(words);
    }

    @Test
    void an_upload_from_pageable_native_memory_is_staged_through_pinned_memory_too() {
        DeviceAllocation block = memory.allocate(1 << 20);
        int[] words = pattern(64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pageable = arena.allocate(256, 16);
            MemorySegment.copy(MemorySegment.ofArray(words), 0, pageable, 0, 256);

            memory.upload(new DeviceSlice(block, 256, 256), pageable);
        }

        assertThat(driver.sources).isNotEmpty().allMatch(driver::isPinned);
        assertThat(deviceWords(256, 64)).isEqualTo(words);
    }

    @Test
    void an_upload_larger_than_the_staging_block_arrives_whole_in_pieces() {
        DeviceAllocation block = memory.allocate(1 << 20);
        int words = (int) (DriverDeviceMemory.STAGING_BYTES / 4 * 2 + 37);
        int[] data = pattern(words);

        memory.upload(new DeviceSlice(block, 512, words * 4L), MemorySegment.ofArray(data));

        assertThat(driver.sources).hasSize(3).allMatch(driver::isPinned);
        assertThat(deviceWords(512, words)).isEqualTo(data);
        assertThat(driver.pinned).as("one staging block, reused").hasSize(1);
    }

    @Test
    void closing_frees_the_staging_block_once_and_a_later_close_does_nothing() {
        memory.upload(new DeviceSlice(memory.allocate(4096), 0, 16), MemorySegment.ofArray(pattern(4)));

        memory.close();
        memory.close();

        assertThat(driver.freedPinned).containsExactlyElementsOf(driver.pinned);
    }

    @Test
    void memory_that_never_uploaded_allocates_no_pinned_memory() {
        memory.close();

        assertThat(driver.pinned).isEmpty();
        assertThat(driver.freedPinned).isEmpty();
    }
}
