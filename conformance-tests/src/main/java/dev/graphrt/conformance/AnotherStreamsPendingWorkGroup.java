package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Memory closed while another stream's queued work still uses it is not handed out again before that work
 * completes.
 *
 * <p>Group 17 of {@link CaptureConformanceKit}.
 */
public abstract class AnotherStreamsPendingWorkGroup extends KitFixture {
    @Test
    void a_buffer_used_by_another_streams_pending_work_is_not_reused_before_that_work_completes() {
        GpuStream other = track(runtime.openStream());
        int[] x = KitKernels.pattern(N, 43);
        Buffer shared = stream.allocate(BYTES);
        stream.synchronize();
        Buffer a = track(other.upload(x));
        Buffer b = track(other.allocate(BYTES));
        for (int k = 0; k < 400; k++) {
            launch(other, k % 2 == 0 ? addOne : mulTwo, k % 2 == 0 ? a : b, k % 2 == 0 ? b : a);
        }
        launch(other, mulTwo, a, shared); // the other stream's last write, queued behind the chain
        shared.close();
        List<Buffer> victims = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Buffer victim = track(stream.allocate(BYTES));
            stream.write(victim, marker(i));
            victims.add(victim);
        }
        stream.synchronize();
        other.synchronize();
        for (int i = 0; i < victims.size(); i++) {
            assertThat(read(victims.get(i)))
                    .as("buffer %d allocated after the close", i)
                    .isEqualTo(marker(i));
        }
    }
}
