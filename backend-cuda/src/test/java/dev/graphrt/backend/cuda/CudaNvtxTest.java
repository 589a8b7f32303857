package dev.graphrt.backend.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import dev.graphrt.driver.PhaseMarkers;
import dev.graphrt.spi.BackendConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The cuda backend's NVTX ranges: when they are made at all (the option and whether a profiler listens), and, on a
 * GPU machine, that prepare, capture, replay and synchronize each open and close one range in that order, through
 * a stand-in {@code libnvToolsExt} that records the calls ({@code src/test/native/nvtx_record.c}; set
 * {@value #RECORDER} to the built library and {@code GRAPHRT_NVTX_RECORD} to the file it writes).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CudaNvtxTest {
    static final String RECORDER = "graphrt.nvtx.recorder";

    private static BackendConfig option(String value) {
        return new BackendConfig(0, Map.of(CudaNvtx.OPTION, value));
    }

    @Test
    void without_a_listening_profiler_nothing_is_loaded_and_ranges_cost_nothing() {
        assertThat(CudaNvtx.markers(BackendConfig.defaults(), name -> null)).isSameAs(PhaseMarkers.NONE);
        assertThat(CudaNvtx.markers(option("auto"), name -> null)).isSameAs(PhaseMarkers.NONE);
    }

    @Test
    void off_never_marks_even_when_a_profiler_listens() {
        assertThat(CudaNvtx.markers(option("off"), name -> "/opt/profiler/libinjection.so"))
                .isSameAs(PhaseMarkers.NONE);
    }

    @Test
    void a_library_that_is_not_there_leaves_every_range_a_no_op() {
        PhaseMarkers markers = CudaNvtx.markers(option("/nonexistent/libnvToolsExt.so.1"), name -> null);

        assertThat(markers).isSameAs(PhaseMarkers.NONE);
        markers.range("graphrt cuda stream 1: replay").close();
    }

    @Test
    void on_a_GPU_prepare_capture_replay_and_synchronize_each_mark_one_closed_range_in_order() throws IOException {
        String recorder = System.getProperty(RECORDER, "");
        String record = System.getenv("GRAPHRT_NVTX_RECORD");
        assumeTrue(
                !recorder.isEmpty() && record != null,
                "needs -D" + RECORDER + "=<libnvtx_record.so> and "
                        + "GRAPHRT_NVTX_RECORD (the GPU run's nvtx step builds and sets both)");
        assumeTrue(
                new CudaBackendProvider().probe().available(),
                new CudaBackendProvider().probe().detail());
        int n = 4096;
        try (GraphRuntime runtime = GraphRT.open(
                        RuntimeOptions.defaults().backend("cuda").backendOption(CudaNvtx.OPTION, recorder));
                GpuStream stream = runtime.openStream()) {
            Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
            Buffer a = stream.upload(new int[n]);
            Buffer b = stream.allocate(n * 4L);
            try (Graph graph = stream.capture(CaptureOptions.defaults().warmups(0), s -> {
                s.launch(addOne, LaunchDims.linear(n, 256), KernelArgs.of(a, b).info(n));
                s.launch(addOne, LaunchDims.linear(n, 256), KernelArgs.of(b, a).info(n));
            })) {
                graph.replay();
                graph.replay();
                stream.synchronize();
                assertThat(stream.readInts(a)[n - 1]).isEqualTo(4); // add_one twice per replay, replayed twice
            }
        }
        List<String> phases = new ArrayList<>();
        Map<String, String> open = new HashMap<>();
        for (String line : Files.readAllLines(Path.of(record))) {
            String[] parts = line.split(" ", 3);
            if (parts[0].equals("start")) {
                open.put(parts[1], parts[2]);
                phases.add(parts[2].substring(parts[2].lastIndexOf(": ") + 2));
                assertThat(parts[2]).startsWith("graphrt cuda stream ");
            } else {
                assertThat(open.remove(parts[1]))
                        .as("range %s ends once, after it started", parts[1])
                        .isNotNull();
            }
        }
        assertThat(open).as("every range was closed").isEmpty();
        assertThat(phases).containsSubsequence("prepare", "capture", "replay", "replay", "synchronize");
        assertThat(phases).filteredOn("replay"::equals).hasSize(2);
        assertThat(phases).filteredOn("capture"::equals).hasSize(1);
    }
}
