package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.spi.Bindings;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * An eager launch passes the backend the bindings of the launch before it when it has the same arguments (so a
 * loop over arguments built once allocates none), and new ones whenever anything they hold would differ.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class LaunchBindingsTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});
    private static final LaunchDims DIMS = LaunchDims.linear(64, 64);

    private FakeBackend backend;
    private CoreRuntime runtime;
    private GpuStream stream;
    private Kernel kernel;
    private Buffer a;
    private Buffer b;

    @BeforeEach
    void open() {
        backend = new FakeBackend(GraphKind.SOFTWARE, EnumSet.noneOf(Capability.class));
        runtime = new CoreRuntime(backend, RuntimeOptions.defaults());
        stream = runtime.openStream();
        kernel = runtime.compile(NOOP);
        a = stream.allocate(256);
        b = stream.allocate(256);
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    private Bindings launch(KernelArgs args) {
        stream.launch(kernel, DIMS, args);
        return backend.lastEagerBindings.get();
    }

    @Test
    void a_launch_with_the_arguments_of_the_one_before_gets_the_same_bindings() {
        KernelArgs args = KernelArgs.of(a, b).info(64, 7);
        Bindings first = launch(args);
        Bindings second = launch(args);
        Bindings third = launch(args);

        assertThat(second).isSameAs(first);
        assertThat(third).isSameAs(first);
        assertThat(first.buffers()).hasSize(2);
        assertThat(first.infoWords()).isEqualTo(2);
    }

    @Test
    void other_arguments_get_bindings_of_their_own_even_over_the_same_buffers() {
        Bindings ab = launch(KernelArgs.of(a, b).info(64, 7));
        Bindings sameBuffersNewArgs = launch(KernelArgs.of(a, b).info(64, 7));
        Bindings swapped = launch(KernelArgs.of(b, a).info(64, 7));
        Bindings otherInfo = launch(KernelArgs.of(a, b).info(64, 8));

        assertThat(sameBuffersNewArgs).isNotSameAs(ab).isEqualTo(ab);
        assertThat(swapped.buffers())
                .containsExactly(ab.buffers().get(1), ab.buffers().get(0));
        assertThat(otherInfo.buffers()).isEqualTo(ab.buffers());
        assertThat(otherInfo.info()).as("its own info words' slice").isNotSameAs(ab.info());
    }

    @Test
    void arguments_used_again_after_others_get_new_bindings_with_the_same_slices() {
        KernelArgs ab = KernelArgs.of(a, b).info(64, 7);
        Bindings first = launch(ab);
        launch(KernelArgs.of(b, a).info(64, 7));
        Bindings again = launch(ab);

        assertThat(again)
                .as("only the last launch's bindings are kept")
                .isNotSameAs(first)
                .isEqualTo(first);
    }
}
