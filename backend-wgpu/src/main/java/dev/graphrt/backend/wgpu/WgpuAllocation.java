package dev.graphrt.backend.wgpu;

import dev.graphrt.spi.DeviceAllocation;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

/**
 * One {@code WGPUBuffer} with storage, copy-source and copy-destination usage: the block the core carves slices
 * out of. Its size is a multiple of 256, so every 256-aligned slice can be bound and copied in whole words.
 */
final class WgpuAllocation implements DeviceAllocation {
    private final WgpuDevice owner;
    private final MemorySegment buffer;
    private final long byteSize;
    private final Set<BindGroupCache.Key> bindKeys = new HashSet<>();
    private boolean freed;

    WgpuAllocation(WgpuDevice owner, MemorySegment buffer, long byteSize) {
        this.owner = owner;
        this.buffer = buffer;
        this.byteSize = byteSize;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    MemorySegment buffer() {
        return buffer;
    }

    WgpuDevice owner() {
        return owner;
    }

    /** Bind-group cache keys naming this allocation. Guarded by the device lock. */
    Set<BindGroupCache.Key> bindKeys() {
        return bindKeys;
    }

    boolean isFreed() {
        return freed;
    }

    void markFreed() {
        freed = true;
    }

    @Override
    public String toString() {
        return "WgpuAllocation[" + byteSize + " bytes @0x" + Long.toHexString(buffer.address()) + "]";
    }
}
