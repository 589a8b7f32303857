package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * The {@code void** kernelParams} argument of {@code cuLaunchKernel}, built once per stream and refilled
 * for every launch: a pointer array whose entry {@code i} points at an 8-byte slot holding the device
 * address of parameter {@code i} (the buffers in order, then the info buffer; docs/kernels.md).
 *
 * <p>Why reusable: a launch must not allocate. This is safe because the core serialises calls per stream
 * and {@code cuLaunchKernel} copies the parameter values before it returns (also while capturing), so
 * the next launch may overwrite the slots. The block only grows, when a launch has more parameters than
 * it holds; the old block stays valid until the arena closes. Not thread-safe.
 */
final class KernelParameterBlock {
    /** Parameters held without growing: enough for every kernel in docs/kernels.md style. */
    static final int INITIAL_CAPACITY = 16;

    private final Arena arena;
    private MemorySegment pointers;
    private MemorySegment slots;
    private int capacity;

    KernelParameterBlock(Arena arena) {
        this(arena, INITIAL_CAPACITY);
    }

    KernelParameterBlock(Arena arena, int capacity) {
        this.arena = Objects.requireNonNull(arena, "arena");
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, was " + capacity);
        }
        allocate(capacity);
    }

    /** Writes the addresses of {@code bindings} into the slots and returns the {@code void**} to pass. */
    MemorySegment pack(Bindings bindings) {
        int count = bindings.parameterCount();
        if (count > capacity) {
            allocate(Math.max(count, capacity * 2));
        }
        List<DeviceSlice> buffers = bindings.buffers();
        int n = buffers.size();
        for (int i = 0; i < n; i++) {
            slots.setAtIndex(JAVA_LONG, i, CudaAllocation.address(buffers.get(i)));
        }
        if (bindings.hasInfo()) {
            slots.setAtIndex(JAVA_LONG, n, CudaAllocation.address(bindings.info()));
        }
        return pointers;
    }

    /** Parameters the block holds without growing. */
    int capacity() {
        return capacity;
    }

    /** The {@code void**} array (for tests and diagnostics). */
    MemorySegment pointers() {
        return pointers;
    }

    /** The value in slot {@code index}: the device address last packed there. */
    long slot(int index) {
        return slots.getAtIndex(JAVA_LONG, index);
    }

    private void allocate(int newCapacity) {
        MemorySegment block = arena.allocate(2L * newCapacity * Long.BYTES, Long.BYTES);
        MemorySegment newPointers = block.asSlice(0, (long) newCapacity * ADDRESS.byteSize());
        MemorySegment newSlots = block.asSlice((long) newCapacity * Long.BYTES, (long) newCapacity * Long.BYTES);
        for (int i = 0; i < newCapacity; i++) {
            newPointers.setAtIndex(ADDRESS, i, newSlots.asSlice((long) i * Long.BYTES, Long.BYTES));
        }
        pointers = newPointers;
        slots = newSlots;
        capacity = newCapacity;
    }
}
