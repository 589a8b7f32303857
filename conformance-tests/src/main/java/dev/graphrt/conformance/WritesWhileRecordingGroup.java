package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.Graph;
import org.junit.jupiter.api.Test;

/**
 * A host write inside the window is recorded and redone by every replay where {@code RECORDS_WRITES} is declared;
 * otherwise endCapture refuses it, naming the write, and the stream stays usable.
 *
 * <p>Group 8 of {@link CaptureConformanceKit}.
 */
public abstract class WritesWhileRecordingGroup extends KitFixture {
    @Test
    void a_write_inside_the_window_is_replayed_or_fails_end_capture_as_declared() {
        int[] captured = KitKernels.pattern(N, 14);
        int[] later = KitKernels.pattern(N, 15);
        Buffer in = upload(KitKernels.pattern(N, 16));
        Buffer out = poisoned();
        stream.prepare();
        stream.beginCapture();
        stream.write(in, captured);
        launch(stream, addOne, in, out);
        if (declares(Capability.RECORDS_WRITES)) {
            Graph graph = track(stream.endCapture());
            stream.write(in, later);
            graph.replay();
            assertThat(read(out))
                    .as("every replay re-writes the captured bytes")
                    .isEqualTo(KitKernels.addOne(captured));
        } else {
            assertThatThrownBy(stream::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("write of " + BYTES + " bytes");
            assertUsableAfterARefusedCapture(in, out, later);
        }
    }
}
