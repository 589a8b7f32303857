package dev.graphrt.core.runtime;

import dev.graphrt.api.StreamEvent;
import dev.graphrt.spi.Fence;

/** An event: a fence of one stream, asked and waited for through that stream (which serialises its backend). */
final class CoreEvent implements StreamEvent {
    private final CoreStream stream;
    private final Fence fence;

    CoreEvent(CoreStream stream, Fence fence) {
        this.stream = stream;
        this.fence = fence;
    }

    @Override
    public long streamId() {
        return stream.id();
    }

    @Override
    public boolean isComplete() {
        return stream.eventComplete(fence);
    }

    @Override
    public void await() {
        stream.awaitEvent(fence);
    }

    CoreStream stream() {
        return stream;
    }

    Fence fence() {
        return fence;
    }

    @Override
    public String toString() {
        return "event of stream #" + stream.id();
    }
}
