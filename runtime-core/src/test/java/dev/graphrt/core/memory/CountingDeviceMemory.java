package dev.graphrt.core.memory;

import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.util.IdentityHashMap;
import java.util.Map;

/** A fake device that counts every allocate and free and refuses double frees. */
public final class CountingDeviceMemory implements DeviceMemory {
    record FakeAllocation(long byteSize, int serial) implements DeviceAllocation {}

    private final Map<FakeAllocation, Boolean> live = new IdentityHashMap<>();
    private long allocatedBytes;
    private long freedBytes;
    private int allocations;
    private int frees;
    private int uploads;

    @Override
    public long alignment() {
        return 256;
    }

    @Override
    public synchronized DeviceAllocation allocate(long bytes) {
        FakeAllocation allocation = new FakeAllocation(bytes, ++allocations);
        live.put(allocation, Boolean.TRUE);
        allocatedBytes += bytes;
        return allocation;
    }

    @Override
    public synchronized void free(DeviceAllocation allocation) {
        if (live.remove(allocation) == null) {
            throw new AssertionError("freed twice or never allocated: " + allocation);
        }
        frees++;
        freedBytes += allocation.byteSize();
    }

    @Override
    public synchronized void upload(DeviceSlice dst, MemorySegment src) {
        uploads++;
    }

    public synchronized long allocatedBytes() {
        return allocatedBytes;
    }

    public synchronized long freedBytes() {
        return freedBytes;
    }

    public synchronized long liveBytes() {
        return allocatedBytes - freedBytes;
    }

    public synchronized int allocations() {
        return allocations;
    }

    public synchronized int frees() {
        return frees;
    }

    public synchronized int uploads() {
        return uploads;
    }
}
