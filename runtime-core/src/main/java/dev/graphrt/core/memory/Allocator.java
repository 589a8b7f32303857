package dev.graphrt.core.memory;

import dev.graphrt.spi.DeviceAllocation;

/** How a pool gets a new device allocation: through the manager, which trims and retries once when the device is full. */
@FunctionalInterface
interface Allocator {
    DeviceAllocation allocate(long bytes);
}
