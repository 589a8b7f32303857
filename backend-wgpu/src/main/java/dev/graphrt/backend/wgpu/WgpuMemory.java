package dev.graphrt.backend.wgpu;

import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * Raw storage: one {@code WGPUBuffer} (storage | copy-src | copy-dst) per allocation, sized up to a multiple of
 * {@link #ALIGNMENT}, which is also the slice alignment ({@code minStorageBufferOffsetAlignment} is at most 256).
 *
 * <p><b>Why {@link #upload} is ordered correctly.</b> {@code wgpuQueueWriteBuffer} takes effect on the queue at
 * the moment of the call: after every command buffer already submitted, before every one submitted later. Work
 * a stream has only <em>encoded</em> (its open encoder, not yet submitted) would therefore run after the upload
 * and see the new bytes even though it was enqueued before. That is right for work that reads a slice it was
 * given after the upload, and wrong only if encoded work still reads the same bytes expecting their old value
 * (a slice reused while earlier work on it is unsubmitted). So before writing, upload submits the open encoder
 * of every stream whose encoded launches bind a range overlapping the destination; every other encoder keeps
 * batching. Recording streams have no open encoder (the core records launches itself), so this is legal
 * mid-capture.
 */
final class WgpuMemory implements DeviceMemory {
    /** Slice offset alignment: WebGPU's largest allowed {@code minStorageBufferOffsetAlignment}. */
    static final long ALIGNMENT = 256;

    private static final long USAGE =
            WebGpuHeader.BUFFER_USAGE_STORAGE | WebGpuHeader.BUFFER_USAGE_COPY_SRC | WebGpuHeader.BUFFER_USAGE_COPY_DST;

    private final WgpuDevice device;

    WgpuMemory(WgpuDevice device) {
        this.device = device;
    }

    @Override
    public long alignment() {
        return Math.max(ALIGNMENT, device.limits.minStorageOffsetAlignment());
    }

    @Override
    public DeviceAllocation allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive, was " + bytes);
        }
        long size = roundUp(bytes, alignment());
        if (size > device.limits.maxBufferSize() || size < 0) {
            throw new DeviceOutOfMemoryException(
                    "wgpu: " + bytes + " bytes exceed the device's maxBufferSize of " + device.limits.maxBufferSize(),
                    bytes);
        }
        device.lock.lock();
        try {
            device.checkUsable();
            device.pushErrorScopes(WebGpuHeader.ERROR_FILTER_VALIDATION, WebGpuHeader.ERROR_FILTER_OUT_OF_MEMORY);
            MemorySegment buffer = device.createBuffer(USAGE, size);
            List<WgpuDevice.ScopedError> errors = device.popErrorScopes(2);
            if (!errors.isEmpty()) {
                Wgpu.bufferRelease(buffer);
                WgpuDevice.ScopedError first = errors.getFirst();
                if (first.type() == WebGpuHeader.ERROR_TYPE_OUT_OF_MEMORY) {
                    throw new DeviceOutOfMemoryException(
                            "wgpu: the device could not provide " + size + " bytes: " + first.message(), bytes);
                }
                throw first.toException("wgpuDeviceCreateBuffer");
            }
            device.countAllocation(1);
            return new WgpuAllocation(device, buffer, size);
        } finally {
            device.lock.unlock();
        }
    }

    @Override
    public void free(DeviceAllocation allocation) {
        WgpuAllocation a = own(allocation, "allocation");
        device.lock.lock();
        try {
            if (a.isFreed() || device.isClosed()) {
                return;
            }
            a.markFreed();
            device.countAllocation(-1);
            device.bindGroups.evict(a);
            Wgpu.bufferDestroy(a.buffer());
            Wgpu.bufferRelease(a.buffer());
        } finally {
            device.lock.unlock();
        }
    }

    @Override
    public void upload(DeviceSlice dst, MemorySegment src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        WgpuAllocation a = own(dst.allocation(), "dst");
        if (src.byteSize() > dst.length()) {
            throw new IllegalArgumentException(
                    "src: " + src.byteSize() + " bytes do not fit the " + dst.length() + "-byte slice");
        }
        if (src.byteSize() == 0) {
            return;
        }
        device.lock.lock();
        try {
            device.checkUsable();
            if (a.isFreed()) {
                throw new IllegalArgumentException("dst: allocation was freed");
            }
            for (WgpuStream stream : device.streams()) {
                stream.submitIfEncodedReads(a, dst.offset(), src.byteSize());
            }
            device.attribute(null, "wgpuQueueWriteBuffer");
            device.pushErrorScopes(WebGpuHeader.ERROR_FILTER_VALIDATION);
            device.writeBuffer(a.buffer(), dst.offset(), src);
            List<WgpuDevice.ScopedError> errors = device.popErrorScopes(1);
            if (!errors.isEmpty()) {
                throw errors.getFirst().toException("wgpuQueueWriteBuffer");
            }
        } finally {
            device.lock.unlock();
        }
    }

    WgpuAllocation own(DeviceAllocation allocation, String argument) {
        Objects.requireNonNull(allocation, argument);
        if (!(allocation instanceof WgpuAllocation a) || a.owner() != device) {
            throw new IllegalArgumentException(argument + ": not an allocation of this wgpu backend: " + allocation);
        }
        return a;
    }

    static long roundUp(long value, long multiple) {
        return (value + multiple - 1) / multiple * multiple;
    }
}
