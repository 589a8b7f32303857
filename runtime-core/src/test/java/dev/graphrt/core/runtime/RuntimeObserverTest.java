package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeObserver;
import dev.graphrt.api.RuntimeOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Observers are told of captures, replays, the replays a synchronize completed, and pool growth, in order. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class RuntimeObserverTest {
    private static final KernelSource NOOP = KernelSource.named("noop").java((args, from, to) -> {});

    /** Writes what it is told as lines, durations only as their sign. */
    private static final class Journal implements RuntimeObserver {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public void captured(long stream, long graph, int nodes, Duration took) {
            lines.add("captured stream " + stream + " graph " + graph + " nodes " + nodes + sign(took));
        }

        @Override
        public void replayed(long stream, long graph) {
            lines.add("replayed stream " + stream + " graph " + graph);
        }

        @Override
        public void replayCompleted(long stream, long graph, Duration sinceEnqueue) {
            lines.add("completed stream " + stream + " graph " + graph + sign(sinceEnqueue));
        }

        @Override
        public void poolGrew(String pool, long requested, long reserved) {
            lines.add("grew " + pool + (reserved >= requested && requested > 0 ? " enough" : " short"));
        }

        private static String sign(Duration duration) {
            return duration.isNegative() ? " negative" : "";
        }
    }

    @Test
    void pool_growth_reports_what_the_device_gave_so_the_figures_add_up_to_the_reserved_bytes() {
        java.util.concurrent.atomic.AtomicLong told = new java.util.concurrent.atomic.AtomicLong();
        try (CoreRuntime runtime = new CoreRuntime(new FakeBackend(), RuntimeOptions.defaults())) {
            runtime.observe(new RuntimeObserver() {
                @Override
                public void poolGrew(String pool, long requested, long reserved) {
                    told.addAndGet(reserved);
                }
            });
            long before = runtime.memoryStats().reservedBytes();
            GpuStream stream = runtime.openStream();
            stream.allocate(100_000); // a size-class slot: the pool reserves a whole page for it
            stream.allocate(3 << 20); // above the size classes: an exact-fit allocation
            stream.prepare();
            stream.allocate(12_345); // the persistent pool
            stream.cancelCapture();
            assertThat(told.get()).isEqualTo(runtime.memoryStats().reservedBytes() - before);
        }
    }

    @Test
    void a_capture_its_replays_their_completion_and_pool_growth_are_told_in_order() {
        Journal journal = new Journal();
        try (CoreRuntime runtime = new CoreRuntime(new FakeBackend(), RuntimeOptions.defaults())) {
            runtime.observe(journal);
            GpuStream stream = runtime.openStream();
            Kernel kernel = runtime.compile(NOOP);
            Buffer buffer = stream.allocate(4096);
            assertThat(journal.lines)
                    .anySatisfy(line -> assertThat(line).startsWith("grew").endsWith("enough"));
            journal.lines.clear();

            Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
                s.launch(kernel, LaunchDims.linear(64, 64), KernelArgs.of(buffer));
                s.launch(kernel, LaunchDims.linear(64, 64), KernelArgs.of(buffer));
            });
            graph.replay();
            graph.replay();
            stream.synchronize();
            stream.synchronize();

            String s = " stream " + stream.id() + " graph " + graph.id();
            assertThat(journal.lines.stream().filter(line -> !line.startsWith("grew")))
                    .containsExactly(
                            "captured" + s + " nodes 2",
                            "replayed" + s,
                            "replayed" + s,
                            "completed" + s,
                            "completed" + s);
        }
    }

    @Test
    void an_observer_that_throws_neither_fails_the_work_nor_silences_the_others() {
        Journal journal = new Journal();
        try (CoreRuntime runtime = new CoreRuntime(new FakeBackend(), RuntimeOptions.defaults())) {
            runtime.observe(new RuntimeObserver() {
                @Override
                public void replayed(long stream, long graph) {
                    throw new IllegalStateException("a broken metrics library");
                }
            });
            runtime.observe(journal);
            GpuStream stream = runtime.openStream();
            Graph graph = oneLaunchGraph(runtime, stream);

            graph.replay();
            stream.synchronize();

            assertThat(journal.lines)
                    .contains(
                            "replayed stream " + stream.id() + " graph " + graph.id(),
                            "completed stream " + stream.id() + " graph " + graph.id());
        }
    }

    @Test
    void a_closed_subscription_is_told_nothing_more_and_closing_it_twice_does_nothing() {
        Journal journal = new Journal();
        Journal other = new Journal();
        try (CoreRuntime runtime = new CoreRuntime(new FakeBackend(), RuntimeOptions.defaults())) {
            RuntimeObserver.Subscription subscription = runtime.observe(journal);
            runtime.observe(other);
            GpuStream stream = runtime.openStream();
            Graph graph = oneLaunchGraph(runtime, stream);
            graph.replay();
            subscription.close();
            subscription.close();
            int told = journal.lines.size();

            graph.replay();
            stream.synchronize();

            assertThat(journal.lines).hasSize(told);
            assertThat(other.lines)
                    .filteredOn(line -> line.startsWith("completed"))
                    .hasSize(2);
        }
    }

    @Test
    void a_null_observer_and_a_closed_runtime_are_refused() {
        CoreRuntime runtime = new CoreRuntime(new FakeBackend(), RuntimeOptions.defaults());
        assertThatThrownBy(() -> runtime.observe(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("observer");
        runtime.close();
        assertThatThrownBy(() -> runtime.observe(new Journal()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("observe");
    }

    /** A graph of one launch of a kernel that does nothing, on {@code stream}. */
    private static Graph oneLaunchGraph(CoreRuntime runtime, GpuStream stream) {
        Kernel kernel = runtime.compile(NOOP);
        Buffer buffer = stream.allocate(256);
        return stream.capture(
                CaptureOptions.defaults(), s -> s.launch(kernel, LaunchDims.linear(64, 64), KernelArgs.of(buffer)));
    }
}
