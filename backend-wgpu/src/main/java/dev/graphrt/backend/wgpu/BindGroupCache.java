package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bind groups by (kernel, bindings), least recently used evicted beyond a bound. A bind group keeps its buffers
 * alive, so freeing an allocation first drops every bind group that names it. A sealed graph takes its own
 * reference to each bind group it replays, so eviction never pulls one from under a graph. Guarded by the
 * device lock.
 */
final class BindGroupCache {
    private final WgpuDevice device;
    private final int capacity;
    private final LinkedHashMap<Key, MemorySegment> groups = new LinkedHashMap<>(256, 0.75f, true);

    BindGroupCache(WgpuDevice device, int capacity) {
        this.device = device;
        this.capacity = Math.max(16, capacity);
    }

    /** The cache key: a kernel and the launch's resolved arguments. */
    record Key(WgpuKernel kernel, Bindings bindings) {}

    /** The bind group for a launch of {@code kernel} with {@code bindings}, created on a miss. */
    MemorySegment get(WgpuKernel kernel, Bindings bindings) {
        Key key = new Key(kernel, bindings);
        MemorySegment group = groups.get(key);
        if (group != null) {
            return group;
        }
        List<WgpuAllocation> named = allocations(bindings);
        group = create(kernel, bindings);
        groups.put(key, group);
        for (WgpuAllocation a : named) {
            a.bindKeys().add(key);
        }
        if (groups.size() > capacity) {
            Iterator<Map.Entry<Key, MemorySegment>> eldest = groups.entrySet().iterator();
            Map.Entry<Key, MemorySegment> e = eldest.next();
            eldest.remove();
            forget(e.getKey());
            Wgpu.bindGroupRelease(e.getValue());
        }
        return group;
    }

    /** Drops every bind group naming {@code allocation} (before it is freed). */
    void evict(WgpuAllocation allocation) {
        for (Key key : List.copyOf(allocation.bindKeys())) {
            MemorySegment group = groups.remove(key);
            forget(key);
            if (group != null) {
                Wgpu.bindGroupRelease(group);
            }
        }
        allocation.bindKeys().clear();
    }

    void clear() {
        for (Map.Entry<Key, MemorySegment> e : groups.entrySet()) {
            forget(e.getKey());
            Wgpu.bindGroupRelease(e.getValue());
        }
        groups.clear();
    }

    int size() {
        return groups.size();
    }

    private static void forget(Key key) {
        Bindings b = key.bindings();
        for (DeviceSlice s : b.buffers()) {
            ((WgpuAllocation) s.allocation()).bindKeys().remove(key);
        }
        if (b.hasInfo()) {
            ((WgpuAllocation) b.info().allocation()).bindKeys().remove(key);
        }
    }

    private List<WgpuAllocation> allocations(Bindings bindings) {
        List<WgpuAllocation> result = new ArrayList<>(bindings.parameterCount());
        for (DeviceSlice s : bindings.buffers()) {
            result.add(own(s));
        }
        if (bindings.hasInfo()) {
            result.add(own(bindings.info()));
        }
        return result;
    }

    private WgpuAllocation own(DeviceSlice slice) {
        if (!(slice.allocation() instanceof WgpuAllocation a) || a.owner() != device) {
            throw new IllegalArgumentException(
                    "bindings: not an allocation of this wgpu backend: " + slice.allocation());
        }
        if (a.isFreed()) {
            throw new IllegalArgumentException("bindings: allocation was freed: " + a);
        }
        return a;
    }

    /** Builds the bind group: each binding the kernel declares gets its parameter's (buffer, offset, size). */
    private MemorySegment create(WgpuKernel kernel, Bindings bindings) {
        int[] declared = kernel.bindings();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment entries = a.allocate(WebGpuHeader.BIND_GROUP_ENTRY, Math.max(1, declared.length));
            long stride = WebGpuHeader.BIND_GROUP_ENTRY.byteSize();
            for (int i = 0; i < declared.length; i++) {
                int binding = declared[i];
                DeviceSlice slice = parameter(kernel, bindings, binding);
                WgpuAllocation allocation = own(slice);
                long size = binding == bindings.buffers().size() && bindings.hasInfo()
                        ? bindings.infoWords() * 4L
                        : slice.length();
                size = Math.min(Math.max(4, (size + 3) & ~3L), allocation.byteSize() - slice.offset());
                MemorySegment e = entries.asSlice(i * stride, stride);
                e.set(JAVA_INT, WebGpuHeader.BGE_BINDING, binding);
                e.set(ADDRESS, WebGpuHeader.BGE_BUFFER, allocation.buffer());
                e.set(JAVA_LONG, WebGpuHeader.BGE_OFFSET, slice.offset());
                e.set(JAVA_LONG, WebGpuHeader.BGE_SIZE, size);
            }
            MemorySegment d = a.allocate(WebGpuHeader.BIND_GROUP_DESCRIPTOR);
            WgpuDevice.nullLabel(d, WebGpuHeader.BGD_LABEL);
            d.set(ADDRESS, WebGpuHeader.BGD_LAYOUT, kernel.bindGroupLayout());
            d.set(JAVA_LONG, WebGpuHeader.BGD_ENTRY_COUNT, declared.length);
            d.set(ADDRESS, WebGpuHeader.BGD_ENTRIES, entries);
            device.call("wgpuDeviceCreateBindGroup");
            return Wgpu.deviceCreateBindGroup(device.device, d);
        }
    }

    private static DeviceSlice parameter(WgpuKernel kernel, Bindings bindings, int binding) {
        int buffers = bindings.buffers().size();
        if (binding < buffers) {
            return bindings.buffers().get(binding);
        }
        if (binding == buffers && bindings.hasInfo()) {
            return bindings.info();
        }
        throw new IllegalArgumentException("bindings: kernel '" + kernel.entryPoint() + "' declares @binding(" + binding
                + ") but the launch passes " + buffers + " buffer(s)"
                + (bindings.hasInfo() ? " and an info buffer" : " and no info words")
                + " (docs/kernels.md: buffer i at binding i, info at binding n)");
    }
}
