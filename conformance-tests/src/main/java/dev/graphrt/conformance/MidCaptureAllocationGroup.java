package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphNotRelaunchableException;
import org.junit.jupiter.api.Test;

/**
 * An odd-sized allocation inside the recording window works where {@code MID_CAPTURE_ALLOCATION} is declared
 * (the graph pins it) and is otherwise refused, telling the user to warm up, leaving the stream usable.
 *
 * <p>Group 6 of {@link CaptureConformanceKit}.
 */
public abstract class MidCaptureAllocationGroup extends KitFixture {
    private static final long ODD = 3_145_733;

    @Test
    void an_odd_sized_allocation_inside_the_window_is_honoured_or_refused_as_declared() {
        int[] x = KitKernels.pattern(N, 12);
        Buffer in = upload(x);
        Buffer out = poisoned();
        stream.prepare();
        stream.beginCapture();
        if (declares(Capability.MID_CAPTURE_ALLOCATION)) {
            Buffer temp = stream.allocate(ODD);
            launch(stream, addOne, in, temp);
            launch(stream, mulTwo, temp, out);
            temp.close();
            Graph graph = track(stream.endCapture());
            assertThat(graph.info().pinnedBytes()).isGreaterThanOrEqualTo(ODD);
            graph.replay();
            assertThat(read(out)).isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        } else {
            assertThatThrownBy(() -> stream.allocate(ODD))
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("Warm up");
            assertThatThrownBy(stream::endCapture).isInstanceOf(GraphNotRelaunchableException.class);
            assertUsableAfterARefusedCapture(in, out, x);
        }
    }
}
