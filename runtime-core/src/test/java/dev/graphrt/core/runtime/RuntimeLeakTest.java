package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.util.Modules;
import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import dev.graphrt.core.GraphRTModule;
import dev.graphrt.core.ProviderSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuntimeLeakTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});

    @Test
    void after_closing_every_buffer_graph_stream_and_the_runtime_every_allocated_byte_is_freed() {
        FakeBackend backend = new FakeBackend();
        GraphRuntime runtime =
                new CoreRuntime(backend, RuntimeOptions.defaults().pool(1 << 16, 1 << 12));
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer weights = stream.allocate(100_000);
        Buffer small = stream.allocate(300);
        Graph graph = stream.capture(CaptureOptions.defaults().warmups(2), s -> {
            try (Buffer temp = s.allocate(4096)) {
                s.launch(
                        kernel,
                        LaunchDims.linear(1024, 256),
                        KernelArgs.of(weights, temp).info(1024, 7));
                s.launch(
                        kernel,
                        LaunchDims.linear(1024, 256),
                        KernelArgs.of(temp, small).info(1024, 8));
            }
        });
        graph.replay();
        Graph second = stream.capture(
                CaptureOptions.defaults(),
                s -> s.launch(
                        kernel, LaunchDims.linear(64, 64), KernelArgs.of(small).info(new int[300])));
        second.replay();
        assertThat(backend.memory.liveBytes()).isPositive();

        graph.close();
        weights.close();
        small.close();
        stream.close();
        second.close();
        runtime.close();

        assertThat(backend.memory.liveBytes()).as("every byte returned").isZero();
        assertThat(backend.memory.frees()).isEqualTo(backend.memory.allocations());
        assertThat(backend.destroyed.get()).isEqualTo(2);
        assertThat(backend.openStreams.get()).isZero();
        assertThat(backend.closed).isTrue();
    }

    @Test
    void closing_the_runtime_alone_releases_everything_its_streams_and_graphs_held() {
        FakeBackend backend = new FakeBackend();
        GraphRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        stream.capture(CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in)));
        stream.prepare();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
        assertThat(backend.destroyed.get()).isEqualTo(1);
    }

    @Test
    void closing_a_stream_frees_a_cached_info_entry_that_a_live_graph_had_pinned() {
        FakeBackend backend = new FakeBackend();
        GraphRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        GpuStream stream = runtime.openStream();
        Kernel kernel = runtime.compile(NOOP);
        Buffer in = stream.upload(new float[] {1, 2, 3});
        stream.launch(kernel, LaunchDims.linear(3, 32), KernelArgs.of(in).info(3)); // a normal cache entry
        stream.capture(
                CaptureOptions.defaults(),
                s -> s.launch(
                        kernel, LaunchDims.linear(3, 32), KernelArgs.of(in).info(3))); // hits and pins it
        in.close();

        stream.close();

        assertThat(runtime.memoryStats().inUseBytes())
                .as("the entry went with its graph and its stream")
                .isZero();
        runtime.close();
        assertThat(backend.memory.liveBytes()).isZero();
    }

    @Test
    void an_application_can_replace_the_provider_list_through_guice() {
        FakeBackend backend = new FakeBackend();
        try (GraphRuntime runtime = GraphRT.open(Modules.override(new GraphRTModule())
                .with(binder -> binder.bind(ProviderSource.class)
                        .toInstance(() -> List.of(new FakeBackend.Provider(backend)))))) {
            assertThat(runtime.backendName()).isEqualTo("fake");
            assertThat(System.getProperty("guice_bytecode_gen_option")).isEqualTo("DISABLED");
        }
        assertThat(backend.closed).isTrue();
    }
}
