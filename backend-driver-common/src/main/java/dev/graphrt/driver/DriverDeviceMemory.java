package dev.graphrt.driver;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Raw device storage of a hardware backend over its {@link DeviceMemoryDriver}. Policy (pools, priming,
 * pinning) belongs to the core; this class only checks its requests and turns them into driver calls.
 *
 * <p>Why shared: CUDA and HIP differ only in the native calls; the checks, the current-context rule and the
 * staging of an upload's bytes are the same for both.
 *
 * <p>Why uploads go through pinned memory: {@link #upload} must leave the bytes on the device before any later
 * work on any stream reads them (the core uploads info words and checked mode's canaries this way, then launches
 * on a non-blocking stream). A synchronous copy from pageable memory may return once the bytes are staged for
 * DMA, before they reach the device, and a non-blocking stream is not ordered after it (the CUDA driver's
 * documented behaviour for {@code cuMemcpyHtoD}); from page-locked memory it is complete on return. One pinned
 * block of {@link #STAGING_BYTES}, allocated at the first upload and freed at {@link #close}, carries every upload,
 * in pieces when larger.
 */
public final class DriverDeviceMemory implements DeviceMemory, AutoCloseable {
    /**
     * The alignment of the blocks {@code cuMemAlloc_v2} and {@code hipMalloc} return (256 bytes); slices keep it
     * for vectorised access.
     */
    public static final long DRIVER_ALIGNMENT = 256;
    /** Bytes of the pinned block every upload is staged through (info buffers and canaries are far smaller). */
    public static final long STAGING_BYTES = 64L << 10;

    private final DriverContext context;
    private final DeviceMemoryDriver driver;
    private final long alignment;
    private final Object stagingLock = new Object();
    /** The pinned staging block; null before the first upload and after close. */
    private MemorySegment staging;

    private boolean closed;

    /** Device memory whose blocks have the drivers' {@link #DRIVER_ALIGNMENT}. */
    public DriverDeviceMemory(DriverContext context, DeviceMemoryDriver driver) {
        this(context, driver, DRIVER_ALIGNMENT);
    }

    /**
     * @param context   the backend's context, made current before every call
     * @param driver    the backend's memory calls
     * @param alignment the alignment of the driver's blocks, which slices keep
     */
    public DriverDeviceMemory(DriverContext context, DeviceMemoryDriver driver, long alignment) {
        this.context = Objects.requireNonNull(context, "context");
        this.driver = Objects.requireNonNull(driver, "driver");
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, was " + alignment);
        }
        this.alignment = alignment;
    }

    @Override
    public long alignment() {
        return alignment;
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
        if (!(allocation instanceof DriverAllocation own)
                || !own.backend().equals(context.names().backend())) {
            throw new IllegalArgumentException("allocation " + allocation + " does not belong to the "
                    + context.names().backend() + " backend");
        }
        context.makeCurrent();
        driver.free(own.pointer());
    }

    /** Copies {@code src} to the device through the pinned staging block: complete when this returns. */
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
        synchronized (stagingLock) {
            MemorySegment block = stagingBlock();
            for (long done = 0; done < bytes; done += STAGING_BYTES) {
                long piece = Math.min(STAGING_BYTES, bytes - done);
                MemorySegment.copy(src, done, block, 0, piece);
                driver.copyToDevice(address + done, block, piece);
            }
        }
    }

    private MemorySegment stagingBlock() {
        if (closed) {
            throw new IllegalStateException("the " + context.names().backend() + " device memory is closed");
        }
        if (staging == null) {
            staging = driver.allocatePinned(STAGING_BYTES);
        }
        return staging;
    }

    /** Frees the staging block; the backend closes its memory after its streams. Idempotent. */
    @Override
    public void close() {
        MemorySegment block;
        synchronized (stagingLock) {
            closed = true;
            block = staging;
            staging = null;
        }
        if (block != null) {
            context.makeCurrent();
            driver.freePinned(block);
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

    @Override
    public String toString() {
        return "DriverDeviceMemory[" + context.names().backend() + "]";
    }
}
