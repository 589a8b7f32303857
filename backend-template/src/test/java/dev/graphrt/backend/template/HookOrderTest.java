package dev.graphrt.backend.template;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.util.Modules;
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
import dev.graphrt.core.GraphRTModule;
import dev.graphrt.core.ProviderSource;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The core calls a software backend's stream hooks in the order docs/writing-a-backend.md gives. The template runs
 * behind a proxy that notes every {@link BackendStream} and {@link SoftwareGraphs} call; fences and waits are left out of the comparison
 * (how many the core makes is its own business), the hooks and the work are not.
 */
class HookOrderTest {
    private static final Set<String> WAITS = Set.of("recordFence", "isComplete", "await", "flush");
    private static final int N = 1000;

    private final List<String> calls = new CopyOnWriteArrayList<>();
    /** What the core asked of the backend's streams while the runtime, then the first stream, opened. */
    private List<String> atRuntimeOpen;

    private List<String> atStreamOpen;
    private GraphRuntime runtime;
    private GpuStream stream;
    private Kernel addOne;
    private Buffer in;
    private Buffer out;

    /** {@code target} behind a proxy of {@code type}; with {@code note}, each call's name goes into {@link #calls}. */
    @SuppressWarnings("unchecked")
    private <T> T noting(Class<T> type, T target, boolean note) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (note) {
                calls.add(method.getName());
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
            if (method.getReturnType()
                    == CaptureSupport.class) { // the stream's capture support (the template's: itself)
                return noting(SoftwareGraphs.class, (SoftwareGraphs) result, true);
            }
            return result instanceof BackendStream opened ? noting(BackendStream.class, opened, true) : result;
        });
    }

    @BeforeEach
    void openTheTemplateBehindAProxy() {
        Backend backend = noting(Backend.class, new TemplateBackendProvider().open(BackendConfig.defaults()), false);
        BackendProvider provider = new BackendProvider() {
            @Override
            public String name() {
                return "noted";
            }

            @Override
            public int priority() {
                return 0;
            }

            @Override
            public Availability probe() {
                return Availability.available("the template, behind a proxy");
            }

            @Override
            public Backend open(BackendConfig config) {
                return backend;
            }
        };
        runtime = GraphRT.open(Modules.override(new GraphRTModule(RuntimeOptions.defaults()))
                .with(binder -> binder.bind(ProviderSource.class).toInstance(() -> List.of(provider))));
        atRuntimeOpen = hooks();
        stream = runtime.openStream();
        atStreamOpen = hooks();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        in = stream.upload(KitKernels.pattern(N, 1));
        out = stream.upload(KitKernels.poison(N));
        stream.synchronize();
        calls.clear();
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    private List<String> hooks() {
        List<String> noted = List.copyOf(calls);
        calls.clear();
        return noted.stream().filter(call -> !WAITS.contains(call)).toList();
    }

    private void launch(GpuStream s) {
        s.launch(
                addOne,
                LaunchDims.linear(N, KitKernels.BLOCK),
                KernelArgs.of(in, out).info(N));
    }

    @Test
    void opening_asks_a_stream_for_its_capture_support_once_when_it_opens() {
        assertThat(atRuntimeOpen)
                .as("the runtime learns the graph kind from a stream it opens and closes")
                .containsExactly("capture", "close");
        assertThat(atStreamOpen).as("each stream is asked once, when it opens").containsExactly("capture");
    }

    @Test
    void capture_replay_and_close_call_the_hooks_in_the_documented_order() {
        Graph graph = stream.capture(CaptureOptions.defaults(), this::launch);
        assertThat(hooks())
                .as("prepare, one warm-up pass, begin, the recorded step, end")
                .containsExactly("drainErrors", "onPrepare", "launch", "drainErrors", "seal");

        graph.replay();
        stream.synchronize();
        graph.close();
        stream.synchronize();
        assertThat(hooks()).containsExactly("replay", "synchronize", "destroy", "synchronize");
    }

    @Test
    void a_cancelled_capture_calls_no_hook_and_nothing_it_recorded_reaches_the_backend() {
        stream.prepare();
        stream.beginCapture();
        launch(stream);
        stream.cancelCapture();
        assertThat(hooks())
                .as("software graphs have nothing open to abort")
                .containsExactly("drainErrors", "onPrepare");
    }
}
