package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;

/**
 * A {@link DeviceMemoryDriver} made of a backend's typed memory calls, one per method. A backend names its
 * calls ({@code cuMemAlloc_v2} or {@code hipMalloc}, ...) and wraps the ones that must not disturb a capture in its
 * RELAXED capture-mode exchange; the checks and the order of calls stay in {@link DriverDeviceMemory}.
 *
 * <p>Why a record of functions rather than a class per backend: each method is a plain delegation to one typed
 * call, so the backends differ only in which calls they name, and that is all they now write.
 *
 * @param allocate       device allocation of positive {@code bytes}, returning its address
 * @param free           frees a device block by address
 * @param copyToDevice   synchronous host-to-device copy from native memory
 * @param allocatePinned page-locked host block of exactly {@code bytes}, made so it invalidates no capture
 * @param freePinned     frees a block of {@code allocatePinned}
 */
public record DeviceMemoryCalls(LongUnaryOperator allocate, LongConsumer free, HostCopy copyToDevice,
        LongFunction<MemorySegment> allocatePinned, Consumer<MemorySegment> freePinned) implements DeviceMemoryDriver {

    /** A synchronous copy of {@code bytes} from native host memory {@code src} to device {@code address}. */
    @FunctionalInterface
    public interface HostCopy {
        void copy(long address, MemorySegment src, long bytes);
    }

    public DeviceMemoryCalls {
        Objects.requireNonNull(allocate, "allocate");
        Objects.requireNonNull(free, "free");
        Objects.requireNonNull(copyToDevice, "copyToDevice");
        Objects.requireNonNull(allocatePinned, "allocatePinned");
        Objects.requireNonNull(freePinned, "freePinned");
    }

    @Override
    public long allocate(long bytes) {
        return allocate.applyAsLong(bytes);
    }

    @Override
    public void free(long pointer) {
        free.accept(pointer);
    }

    @Override
    public void copyToDevice(long address, MemorySegment src, long bytes) {
        copyToDevice.copy(address, src, bytes);
    }

    @Override
    public MemorySegment allocatePinned(long bytes) {
        return allocatePinned.apply(bytes);
    }

    @Override
    public void freePinned(MemorySegment block) {
        freePinned.accept(block);
    }
}
