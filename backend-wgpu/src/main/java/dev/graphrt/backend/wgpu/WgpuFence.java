package dev.graphrt.backend.wgpu;

import dev.graphrt.spi.Fence;

/**
 * A point on the device's one queue: the future of {@code wgpuQueueOnSubmittedWorkDone} after a given
 * submission. WebGPU has a single queue per device, so a fence covers every stream's work submitted before it.
 *
 * @param future     the {@code WGPUFuture} id
 * @param completion filled by the work-done callback
 * @param serial     the queue's submission count when the fence was made
 */
record WgpuFence(long future, Callbacks.Completion completion, long serial) implements Fence {
    boolean isDone() {
        return completion.done;
    }
}
