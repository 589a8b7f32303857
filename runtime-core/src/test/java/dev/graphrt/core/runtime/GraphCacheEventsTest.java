package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A graph cache's misses and evictions are JFR events a recording can read back; hits are only counted. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphCacheEventsTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});

    @Test
    void misses_and_evictions_are_recorded_with_their_key_and_hits_are_not(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cache.jfr");
        FakeBackend backend = new FakeBackend();
        try (CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
                GpuStream stream = runtime.openStream();
                Buffer buffer = stream.allocate(256)) {
            Kernel kernel = runtime.compile(NOOP);
            try (Recording recording = new Recording()) {
                recording.enable("dev.graphrt.GraphCache");
                recording.start();
                try (GraphCache<String> cache =
                        runtime.graphCache(stream, GraphCacheOptions.defaults().maxGraphs(1))) {
                    for (String key : List.of("a", "a", "b")) {
                        cache.run(key, s -> s.launch(kernel, LaunchDims.linear(64, 64), KernelArgs.of(buffer)));
                    }
                    assertThat(cache.stats().hits()).isEqualTo(1);
                }
                recording.stop();
                recording.dump(file);
            }
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.graphrt.GraphCache"))
                .toList();
        assertThat(events)
                .extracting(e -> e.getString("outcome"))
                .containsExactly("miss captured", "miss captured", "evicted");
        assertThat(events).extracting(e -> e.getString("key")).containsExactly("a", "b", "a");
    }
}
