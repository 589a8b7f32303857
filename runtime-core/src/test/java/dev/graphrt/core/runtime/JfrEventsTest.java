package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The core's JFR events, recorded and read back: capture, replay, graph update and rebind, device loss. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class JfrEventsTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);

    @Test
    void capture_replay_update_rebind_and_device_loss_are_recorded_with_what_they_name(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("graphrt.jfr");
        FakeBackend backend =
                new FakeBackend(GraphKind.SOFTWARE, Set.of(Capability.MID_CAPTURE_ALLOCATION, Capability.GRAPH_UPDATE));
        long graphId;
        try (Recording recording = new Recording()) {
            for (String name : List.of(
                    "dev.graphrt.Capture", "dev.graphrt.Replay", "dev.graphrt.GraphUpdate", "dev.graphrt.DeviceLost")) {
                recording.enable(name);
            }
            recording.start();
            try (CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
                    GpuStream stream = runtime.openStream()) {
                Kernel kernel = runtime.compile(NOOP);
                Buffer a = stream.allocate(256);
                Buffer b = stream.allocate(256);
                Graph graph = stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, DIMS, KernelArgs.of(a)));
                graphId = graph.id();
                graph.replay();
                graph.update(s -> s.launch(kernel, DIMS, KernelArgs.of(b)));
                graph.update(s -> {
                    s.launch(kernel, DIMS, KernelArgs.of(b));
                    s.launch(kernel, DIMS, KernelArgs.of(a));
                });
                graph.rebind(b, a);
                runtime.failed("a test's operation", new DeviceLostException("cuTest", 700, "ILLEGAL_ADDRESS"));
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.graphrt."))
                .toList();

        assertThat(events)
                .filteredOn(e -> e.getEventType().getName().equals("dev.graphrt.Replay"))
                .extracting(e -> e.getLong("graph"))
                .containsExactly(graphId);
        assertThat(events)
                .filteredOn(e -> e.getEventType().getName().equals("dev.graphrt.GraphUpdate"))
                .extracting(e -> e.getString("kind") + " " + e.getString("outcome") + " #" + e.getLong("graph"))
                .containsExactly(
                        "update applied #" + graphId, "update rejected #" + graphId, "rebind applied #" + graphId);
        assertThat(events)
                .filteredOn(e -> e.getEventType().getName().equals("dev.graphrt.Capture"))
                .extracting(e -> e.getString("outcome"))
                .contains("sealed", "updated", "update rejected");
        assertThat(events)
                .filteredOn(e -> e.getEventType().getName().equals("dev.graphrt.DeviceLost"))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.getString("operation")).isEqualTo("a test's operation");
                    assertThat(e.getString("error")).contains("700");
                });
    }
}
