package dev.graphrt.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DropQueueTest {
    private final BackendStream stream = mock(BackendStream.class);
    private final Fence fence = mock(Fence.class);
    private final List<String> released = new ArrayList<>();
    private final DropQueue drops = new DropQueue(stream);

    @Test
    void nothing_is_freed_before_its_fence() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(false);
        drops.defer(() -> released.add("a"));
        drops.flush(false);
        drops.reclaim();
        assertThat(released).isEmpty();
        when(stream.isComplete(fence)).thenReturn(true);
        drops.reclaim();
        assertThat(released).containsExactly("a");
    }

    @Test
    void nothing_fenced_is_flushed_while_recording() {
        drops.defer(() -> released.add("a"));
        drops.flush(true);
        verify(stream, never()).recordFence();
        verify(stream, never()).isComplete(any());
        assertThat(drops.pendingCount()).isEqualTo(1);
        assertThat(released).isEmpty();
    }

    @Test
    void everything_deferred_is_freed_after_the_window_ends() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(true);
        drops.defer(() -> released.add("during capture"));
        drops.flush(true);
        drops.flush(false);
        assertThat(released).containsExactly("during capture");
    }

    @Test
    void a_sync_makes_every_queued_release_safe() {
        when(stream.recordFence()).thenReturn(fence);
        when(stream.isComplete(fence)).thenReturn(false);
        drops.defer(() -> released.add("fenced"));
        drops.flush(false);
        drops.defer(() -> released.add("pending"));
        drops.releaseAllAfterSync();
        assertThat(released).containsExactly("fenced", "pending");
    }

    @Test
    void drain_waits_on_every_fence_and_runs_releases_queued_by_releases() {
        when(stream.recordFence()).thenReturn(fence);
        drops.defer(() -> {
            released.add("graph");
            drops.defer(() -> released.add("its info buffer"));
        });
        drops.flush(false);
        drops.drain();
        verify(stream).await(fence);
        assertThat(released).containsExactly("graph", "its info buffer");
    }
}
