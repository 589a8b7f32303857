package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * Host synchronisation is refused while a stream records: read, synchronize and flush fail at the call, and the
 * capture still ends and replays.
 *
 * <p>Group 7 of {@link CaptureConformanceKit}.
 */
public abstract class HostSyncWhileRecordingGroup extends KitFixture {
    @Test
    void read_sync_and_flush_are_rejected_eagerly_and_the_capture_still_ends_and_replays() {
        int[] x = KitKernels.pattern(N, 13);
        Buffer in = upload(x);
        Buffer out = poisoned();
        stream.prepare();
        stream.beginCapture();
        launch(stream, addOne, in, out);
        assertThatThrownBy(() -> stream.readInts(out))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("read");
        assertThatThrownBy(stream::synchronize)
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("synchronize");
        assertThatThrownBy(stream::flush)
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("flush");
        assertThat(stream.captureState()).isEqualTo(CaptureState.CAPTURE);
        Graph graph = track(stream.endCapture());
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
    }
}
