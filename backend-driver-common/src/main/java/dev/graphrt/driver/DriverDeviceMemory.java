package dev.graphrt.driver;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Raw device storage of a hardware backend over its {@link DeviceMemoryDriver}. Policy (pools, priming,
 * pinning) belongs to the core; this class only checks its requests and turns them into driver calls.
 *
 * <p>Why shared: CUDA and HIP differ only in the native calls; the checks, the current-context rule and the
 * copy of a heap {@code src} into native memory before a synchronous upload are the same for both.
 *
 * @param context   the backend's context, made current before every call
 * @param driver    the backend's memory calls
 * @param alignment the alignment of the driver's blocks, which slices keep
 */
public record DriverDeviceMemory(DriverContext context, DeviceMemoryDriver driver, long alignment)
        implements DeviceMemory {
    /**
     * The alignment of the blocks {@code cuMemAlloc_v2} and {@code hipMalloc} return (256 bytes); slices keep it
     * for vectorised access.
     */
    public static final long DRIVER_ALIGNMENT = 256;

    /** Device memory whose blocks have the drivers' {@link #DRIVER_ALIGNMENT}. */
    public DriverDeviceMemory(DriverContext context, DeviceMemoryDriver driver) {
        this(context, driver, DRIVER_ALIGNMENT);
    }

    public DriverDeviceMemory {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(driver, "driver");
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, was " + alignment);
        }
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive, was " + bytes);
        }
        context.makeCurrent();
        return new DriverAllocation(context.names().backend(), context, driver.allocate(bytes), bytes);
    }

    @Override
    public void free(DeviceAllocation allocation) {
        Objects.requireNonNull(allocation, "allocation");
        if (!(allocation instanceof DriverAllocation own) || !own.backend().equals(context.names().backend())) {
            throw new IllegalArgumentException("allocation " + allocation + " does not belong to the "
                    + context.names().backend() + " backend");
        }
        context.makeCurrent();
        driver.free(own.pointer());
    }

    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        long bytes = src.byteSize();
        if (bytes > dst.length()) {
            throw new IllegalArgumentException("upload of " + bytes + " bytes into a slice of " + dst.length());
        }
        if (bytes == 0) {
            return;
        }
        long address = DriverAllocation.address(dst, context.names().backend());
        context.makeCurrent();
        if (src.isNative()) {
            driver.copyToDevice(address, src, bytes);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(bytes, 16);
            copy.copyFrom(src);
            driver.copyToDevice(address, copy, bytes);
        }
    }

    /** The backend's page-locked host memory, made with its context current. */
    public PinnedHostMemory pinned() {
        return new PinnedHostMemory() {
            @Override
            public MemorySegment allocate(long bytes) {
                context.makeCurrent();
                return driver.allocatePinned(bytes);
            }

            @Override
            public void free(MemorySegment block) {
                context.makeCurrent();
                driver.freePinned(block);
            }
        };
    }
}
