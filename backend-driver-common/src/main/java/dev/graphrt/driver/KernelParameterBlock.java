package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * The {@code void** kernelParams} argument of {@code cuLaunchKernel} and {@code hipModuleLaunchKernel},
 * built once per stream and refilled for every launch that passes other bindings than the last one (a loop
 * launching with the same arguments writes nothing): a pointer array whose entry {@code i} points at an
 * 8-byte slot holding the device address of parameter {@code i} (the buffers in order, then the info
 * buffer; docs/kernels.md).
 *
 * <p>Why reusable: a launch must not allocate. This is safe because the core serialises calls per stream
 * and both drivers copy the parameter values before the launch call returns (also while capturing), so
 * the next launch may overwrite the slots. The block only grows, when a launch has more parameters than
 * it holds; the old block stays valid until the arena closes. Not thread-safe.
 */
public final class KernelParameterBlock {
    /** Parameters held without growing: enough for every kernel in docs/kernels.md style. */
    public static final int INITIAL_CAPACITY = 16;

    /** The device address of a slice; refuses (IllegalArgumentException) a slice of another backend. */
    @FunctionalInterface
    public interface DeviceAddresses {
        long address(DeviceSlice slice);
    }

    private final Arena arena;
    private final DeviceAddresses addresses;
    private MemorySegment pointers;
    private MemorySegment slots;
    private int capacity;
    /** The bindings the slots hold now: packing them again writes nothing (bindings are immutable). */
    private Bindings packed; // null until the first pack, and after the block grows

    /** A block of {@value #INITIAL_CAPACITY} parameters in {@code arena}, resolving slices with {@code addresses}. */
    public KernelParameterBlock(Arena arena, DeviceAddresses addresses) {
        this(arena, addresses, INITIAL_CAPACITY);
    }

    /** A block of {@code capacity} parameters (it grows when a launch needs more). */
    public KernelParameterBlock(Arena arena, DeviceAddresses addresses, int capacity) {
        this.arena = Objects.requireNonNull(arena, "arena");
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, was " + capacity);
        }
        allocate(capacity);
    }

    /** Writes the addresses of {@code bindings} into the slots and returns the {@code void**} to pass. */
    public MemorySegment pack(Bindings bindings) {
        if (bindings == packed) { // a loop launching with the same arguments: the slots already hold them
            return pointers;
        }
        int count = bindings.parameterCount();
        if (count > capacity) {
            allocate(Math.max(count, capacity * 2));
        }
        List<DeviceSlice> buffers = bindings.buffers();
        int n = buffers.size();
        for (int i = 0; i < n; i++) {
            slots.setAtIndex(JAVA_LONG, i, addresses.address(buffers.get(i)));
        }
        if (bindings.hasInfo()) {
            slots.setAtIndex(JAVA_LONG, n, addresses.address(bindings.info()));
        }
        packed = bindings;
        return pointers;
    }

    /** Parameters the block holds without growing. */
    public int capacity() {
        return capacity;
    }

    /** The {@code void**} array (for tests and diagnostics). */
    public MemorySegment pointers() {
        return pointers;
    }

    /** The value in slot {@code index}: the device address last packed there. */
    public long slot(int index) {
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
        packed = null;
        capacity = newCapacity;
    }
}
