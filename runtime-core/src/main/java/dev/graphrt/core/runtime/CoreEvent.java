package dev.graphrt.core.runtime;

import dev.graphrt.api.StreamEvent;
import dev.graphrt.spi.Fence;

/**
 * An event: a fence of one stream, asked and waited for through that stream (which serialises its backend). One
 * recorded inside a capture belongs to that capture's {@link CaptureGroup}: it marks a point in the graph (after
 * {@code position} recorded operations of its stream), and only streams joining that capture may wait for it.
 */
final class CoreEvent implements StreamEvent {
    private final CoreStream stream;
    private final Fence fence;
    private final CaptureGroup group;
    private final int position;

    CoreEvent(CoreStream stream, Fence fence) {
        this(stream, fence, null, 0);
    }

    /** An event of a capture: {@code fence} is the backend's capture event (null for a software graph). */
    CoreEvent(CoreStream stream, Fence fence, CaptureGroup group, int position) {
        this.stream = stream;
        this.fence = fence;
        this.group = group;
        this.position = position;
    }

    @Override
    public long streamId() {
        return stream.id();
    }

    @Override
    public boolean isComplete() {
        refuseInCapture("isComplete");
        return stream.eventComplete(fence);
    }

    @Override
    public void await() {
        refuseInCapture("await");
        stream.awaitEvent(fence);
    }

    private void refuseInCapture(String operation) {
        if (group != null) {
            throw new IllegalStateException(operation + ": " + this + " was recorded inside a capture: it marks a point "
                    + "in the graph, not in time; other streams of that capture wait for it with waitFor");
        }
    }

    /** The capture it was recorded in, or null. */
    CaptureGroup group() {
        return group;
    }

    /** Operations its stream had recorded in the capture when it was recorded. */
    int position() {
        return position;
    }

    CoreStream stream() {
        return stream;
    }

    Fence fence() {
        return fence;
    }

    @Override
    public String toString() {
        return (group != null ? "capture event" : "event") + " of stream #" + stream.id();
    }
}
