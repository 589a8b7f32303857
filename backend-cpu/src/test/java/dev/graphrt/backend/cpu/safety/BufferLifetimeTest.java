package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.conformance.KitKernels;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Issue items 1-4: no operation reaches storage that another live buffer owns, whatever the close order. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class BufferLifetimeTest {
    private final Rig rig = new Rig();
    private final GpuStream stream = rig.runtime.openStream();

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void a_graph_whose_buffers_were_closed_replays_correctly_and_never_writes_into_later_allocations() {
        int[] x = KitKernels.pattern(N, 5);
        Buffer in = stream.upload(x);
        Buffer mid = stream.allocate(BYTES);
        Buffer out = stream.allocate(BYTES);
        // out = 2 * in + 1, with every buffer allocated before prepare()
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> {
            Rig.launch(s, rig.mulTwo, in, mid);
            Rig.launch(s, rig.addOne, mid, out);
        });
        in.close();
        mid.close();
        out.close();
        List<Buffer> later = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            Buffer buffer = stream.upload(Rig.constant(1000 + i));
            later.add(buffer);
        }
        assertThat(rig.runtime.memoryStats().retainedByGraphsBytes()).isGreaterThanOrEqualTo(3 * BYTES);

        graph.replay();
        stream.synchronize();

        for (int i = 0; i < later.size(); i++) {
            assertThat(stream.readInts(later.get(i)))
                    .as("buffer %d allocated after the close", i)
                    .isEqualTo(Rig.constant(1000 + i));
        }
        graph.close();
        stream.synchronize();
        assertThat(rig.runtime.memoryStats().retainedByGraphsBytes()).isZero();
    }

    @Test
    void a_graph_reads_its_closed_input_as_it_was_and_the_storage_is_freed_only_when_the_graph_closes() {
        int[] x = KitKernels.pattern(N, 6);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(BYTES);
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.mulTwo, in, out));
        long inUse = rig.runtime.memoryStats().inUseBytes();
        in.close();
        for (int i = 0; i < 8; i++) {
            stream.upload(Rig.constant(7)).close(); // churn: a reused slot would now hold 7s
        }
        graph.replay();
        assertThat(stream.readInts(out)).isEqualTo(KitKernels.mulTwo(x));
        assertThat(rig.runtime.memoryStats().inUseBytes())
                .as("in is still held by the graph")
                .isEqualTo(inUse);

        graph.close();
        stream.synchronize();
        assertThat(rig.runtime.memoryStats().inUseBytes())
                .as("in freed with the graph")
                .isLessThan(inUse);
    }

    @Test
    void a_buffer_another_stream_still_writes_is_not_handed_out_when_its_owner_closes_it() throws Exception {
        GpuStream other = rig.runtime.openStream();
        CountDownLatch gate = new CountDownLatch(1);
        var wait = rig.hostKernel("gate", () -> {
            try {
                gate.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Buffer shared = stream.allocate(BYTES);
        other.launch(wait, Rig.ONCE, KernelArgs.of());
        Rig.fill(other, rig.fill, shared, 99); // pending behind the gate
        shared.close();
        List<Buffer> victims = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            victims.add(stream.upload(Rig.constant(1)));
        }
        stream.synchronize();
        gate.countDown();
        other.synchronize();
        for (Buffer victim : victims) {
            assertThat(stream.readInts(victim))
                    .as("a buffer allocated after the close")
                    .isEqualTo(Rig.constant(1));
        }
    }

    @Test
    void a_launch_racing_a_close_fails_as_closed_or_writes_its_own_storage_never_another_buffers() throws Exception {
        int[] bigInfo = new int[200_000]; // a large info block widens the window between checks and enqueue
        bigInfo[0] = N;
        for (int round = 0; round < 40; round++) {
            bigInfo[1] = 7 + round;
            Buffer target = stream.upload(Rig.constant(0));
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Throwable> launchFailure = new AtomicReference<>();
            Thread launcher = new Thread(() -> {
                try {
                    go.await();
                    stream.launch(rig.fill, Rig.DIMS, KernelArgs.of(target).info(bigInfo));
                } catch (Throwable t) {
                    launchFailure.set(t);
                }
            });
            launcher.start();
            go.countDown();
            target.close();
            List<Buffer> fresh = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fresh.add(stream.upload(Rig.constant(-1)));
            }
            launcher.join();
            stream.synchronize();
            for (Buffer buffer : fresh) {
                assertThat(stream.readInts(buffer))
                        .as("round %d: a buffer allocated after the close", round)
                        .isEqualTo(Rig.constant(-1));
                buffer.close();
            }
            if (launchFailure.get() != null) {
                assertThat(launchFailure.get())
                        .as("round %d: the only way a racing launch may fail", round)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("args.buffers[0]")
                        .hasMessageContaining("closed");
            }
        }
    }

    @Test
    void a_launch_whose_info_upload_allocates_keeps_its_buffers_held_until_it_has_run() {
        // Found by the stress test: the info lookup allocates, and an allocation is a flush point; holds taken
        // before it went into a fence recorded before the launch itself, and were released too early.
        try (Rig uncached = new Rig(dev.graphrt.api.RuntimeOptions.defaults().metadataCache(0, 4))) {
            GpuStream x = uncached.runtime.openStream();
            GpuStream y = uncached.runtime.openStream();
            int[] data = KitKernels.pattern(N, 12);
            Buffer in = x.upload(data);
            Buffer out = x.allocate(BYTES);
            x.synchronize();
            y.upload(Rig.constant(3)).close(); // closed while its write holds it: the next flush point fences

            Rig.launch(x, uncached.addOne, in, out);
            in.close();
            Buffer victim = y.upload(Rig.constant(-5)); // the most recently freed slot of its class comes first
            y.synchronize();

            assertThat(x.readInts(out)).isEqualTo(KitKernels.addOne(data));
            assertThat(y.readInts(victim)).isEqualTo(Rig.constant(-5));
        }
    }

    @Test
    void closing_buffers_graphs_and_streams_after_the_runtime_is_a_quiet_no_op_and_they_say_closed() {
        Buffer in = stream.upload(KitKernels.pattern(N, 8));
        Buffer never = stream.allocate(BYTES);
        Graph graph = stream.capture(CaptureOptions.defaults(), s -> Rig.launch(s, rig.addOne, in, never));
        rig.runtime.close();

        assertThat(never.isClosed())
                .as("a buffer of a closed runtime is closed")
                .isTrue();
        assertThat(graph.isClosed()).isTrue();
        assertThatCode(() -> {
                    in.close();
                    graph.close();
                    never.close();
                    stream.close();
                    in.close();
                })
                .doesNotThrowAnyException();
        assertThat(in.isClosed()).isTrue();
        assertThat(rig.backend.liveBytes()).isZero();
        assertThat(rig.backend.frees()).isEqualTo(rig.backend.allocations());
    }
}
