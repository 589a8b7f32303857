package dev.graphrt.core.runtime;

import dev.graphrt.api.StreamEvent;
import dev.graphrt.spi.Fence;
import org.jspecify.annotations.Nullable;

/**
 * An event: a fence of one stream, asked and waited for through that stream (which serialises its backend). One
 * recorded inside a capture belongs to that capture's {@link CaptureGroup}: it marks a point in the graph (after
 * {@code position} recorded operations of its stream), and only streams joining that capture may wait for it.
 */
final class CoreEvent implements StreamEvent {
    private final StreamPeer stream;
    private final @Nullable Fence fence;
    private final @Nullable CaptureGroup group;
    private final int position;
    /** The stream whose warm-up (PREPARE) this event was recorded in, or null: a waiter joins that warm-up. */
    private final @Nullable StreamPeer warmup;

    CoreEvent(StreamPeer stream, @Nullable Fence fence) {
        this(stream, fence, null, 0);
    }

    /**
     * An event recorded during {@code warmup}'s warm-up (by that stream, or by a stream that joined its warm-up):
     * an ordinary fence, and a stream that waits for it takes part in the warm-up as it would in the capture.
     */
    CoreEvent(StreamPeer stream, @Nullable Fence fence, @Nullable StreamPeer warmup) {
        this.stream = stream;
        this.fence = fence;
        this.group = null;
        this.position = 0;
        this.warmup = warmup;
    }

    /** An event of a capture: {@code fence} is the backend's capture event (null for a software graph). */
    CoreEvent(StreamPeer stream, @Nullable Fence fence, @Nullable CaptureGroup group, int position) {
        this.stream = stream;
        this.fence = fence;
        this.group = group;
        this.position = position;
        this.warmup = null;
    }

    /** The stream whose warm-up this event belongs to, or null. */
    @Nullable
    StreamPeer warmup() {
        return warmup;
    }

    @Override
    public long streamId() {
        return stream.id();
    }

    @Override
    public boolean isComplete() {
        refuseInCapture("isComplete");
        return stream.eventComplete(hostFence());
    }

    @Override
    public void await() {
        refuseInCapture("await");
        stream.awaitEvent(hostFence());
    }

    private void refuseInCapture(String operation) {
        if (group != null) {
            throw new IllegalStateException(
                    operation + ": " + this + " was recorded inside a capture: it marks a point "
                            + "in the graph, not in time; other streams of that capture wait for it with waitFor");
        }
    }

    /** The capture it was recorded in, or null. */
    @Nullable
    CaptureGroup group() {
        return group;
    }

    /** Operations its stream had recorded in the capture when it was recorded. */
    int position() {
        return position;
    }

    StreamPeer stream() {
        return stream;
    }

    @Nullable
    Fence fence() {
        return fence;
    }

    @Override
    public String toString() {
        return (group != null ? "capture event" : "event") + " of stream #" + stream.id();
    }

    /** The fence of an event recorded outside a capture, which every such event has (one inside has a position). */
    Fence hostFence() {
        if (fence == null) {
            throw new IllegalStateException(this + " was recorded inside a capture and marks no point in time");
        }
        return fence;
    }
}
