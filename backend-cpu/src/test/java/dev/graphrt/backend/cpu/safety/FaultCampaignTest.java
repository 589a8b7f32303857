package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Fault;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Hook;
import dev.graphrt.conformance.KitKernels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A fault at every SPI hook, then a seeded random campaign over them: after each fault the stream captures
 * again and computes exactly, and once everything is closed the pools hold nothing and every device
 * allocation has been freed (but for a free that itself was made to fail).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class FaultCampaignTest {

    /** A step in a decode-like workload; each may fail, and the workload goes on with the next. */
    private static final class Workload {
        final Rig rig;
        final GpuStream stream;
        final List<Throwable> failures = new ArrayList<>();
        final List<AutoCloseable> open = new ArrayList<>();

        Workload(Rig rig) {
            this.rig = rig;
            this.stream = rig.runtime.openStream();
        }

        /** Runs {@code action} unless an earlier step that made what it needs failed. */
        void step(boolean ready, Runnable action) {
            if (ready) {
                step(action);
            }
        }

        void step(Runnable action) {
            try {
                action.run();
            } catch (GraphRTException | IllegalArgumentException | IllegalStateException failure) {
                failures.add(failure);
            } catch (Fault fault) {
                failures.add(fault);
            }
        }

        void run() {
            int[] x = KitKernels.pattern(N, 3);
            Buffer[] in = new Buffer[1];
            Buffer[] out = new Buffer[1];
            Graph[] graph = new Graph[1];
            step(() -> in[0] = track(stream.upload(x)));
            step(() -> out[0] = track(stream.allocate(BYTES)));
            boolean buffers = in[0] != null && out[0] != null;
            step(buffers, () -> Rig.launch(stream, rig.addOne, in[0], out[0]));
            step(buffers, () -> stream.readInts(out[0]));
            step(
                    buffers,
                    () -> graph[0] =
                            track(stream.capture(CaptureOptions.defaults().warmups(1), s -> {
                                try (Buffer temp = s.allocate(BYTES)) {
                                    Rig.launch(s, rig.mulTwo, in[0], temp);
                                    Rig.launch(s, rig.addOne, temp, out[0]);
                                }
                            })));
            boolean captured = graph[0] != null;
            step(captured, () -> graph[0].replay());
            step(buffers, () -> stream.readInts(out[0]));
            Buffer[] other = new Buffer[1];
            step(() -> other[0] = track(stream.allocate(BYTES)));
            step(
                    captured,
                    () -> graph[0].update(CaptureOptions.defaults().warmups(1), s -> {
                        try (Buffer temp = s.allocate(BYTES)) {
                            Rig.launch(s, rig.mulTwo, out[0], temp);
                            Rig.launch(s, rig.addOne, temp, in[0]);
                        }
                    }));
            step(captured && other[0] != null, () -> graph[0].rebind(in[0], other[0]));
            step(buffers && other[0] != null, () -> {
                try (GpuStream side = rig.runtime.openStream()) {
                    Rig.launch(side, rig.addOne, in[0], other[0]);
                    stream.waitFor(side.record());
                    side.synchronize(); // its close would only log a failure of its work
                }
            });
            step(captured, () -> graph[0].replay());
            step(buffers, () -> stream.readInts(out[0]));
            step(buffers, () -> stream.write(in[0], KitKernels.pattern(N, 4)));
            step(captured, () -> graph[0].replay());
            Communicator[] rank = new Communicator[1];
            step(() -> rank[0] = track(
                    rig.runtime.collectives().join(rig.runtime.collectives().newId(), 0, 1, stream)));
            boolean communicates = buffers && rank[0] != null && other[0] != null;
            step(communicates, () -> rank[0].allReduce(in[0], other[0], ReduceOp.SUM, ElementType.INT32));
            Graph[] reducing = new Graph[1];
            step(
                    communicates,
                    () -> reducing[0] = track(stream.capture(
                            CaptureOptions.defaults().warmups(1),
                            s -> rank[0].allReduce(other[0], out[0], ReduceOp.MAX, ElementType.INT32))));
            step(communicates, () -> rank[0].close()); // the graph holds it
            step(reducing[0] != null, () -> reducing[0].replay());
            step(reducing[0] != null, () -> reducing[0].close());
            step(stream::synchronize);
            step(() -> rig.runtime.trim());
            step(captured, () -> graph[0].close());
            step(buffers, () -> in[0].close());
            step(stream::synchronize);
        }

        <T extends AutoCloseable> T track(T resource) {
            open.add(resource);
            return resource;
        }

        /** The stream captures again and computes exactly (on a new stream if the fault closed this one). */
        void assertRecapturable() {
            GpuStream s = stream;
            if (s.captureState() != CaptureState.NO_CAPTURE) {
                s.cancelCapture();
            }
            int[] x = KitKernels.pattern(N, 9);
            try (Buffer in = s.upload(x);
                    Buffer out = s.allocate(BYTES);
                    Graph graph = s.capture(CaptureOptions.defaults(), t -> Rig.launch(t, rig.mulTwo, in, out))) {
                graph.replay();
                assertThat(s.readInts(out)).isEqualTo(KitKernels.mulTwo(x));
            }
        }

        void closeEverything() {
            for (AutoCloseable resource : open) {
                try {
                    resource.close();
                } catch (Exception ignored) {
                    // the fault may surface here too; what matters is what is left afterwards
                }
            }
            try {
                stream.close();
            } catch (RuntimeException ignored) {
                // ditto
            }
            try {
                rig.runtime.close();
            } catch (RuntimeException ignored) {
                // ditto
            }
        }
    }

    private static void faultThenCheck(Hook hook, int nth, String context) {
        Rig rig = new Rig(
                RuntimeOptions.defaults().waitTimeout(Duration.ofSeconds(10)).pool(1 << 16, 1 << 12));
        Workload workload = new Workload(rig);
        int before = rig.backend.calls(hook); // the rig's own set-up may have called it already
        rig.backend.failOn(hook, nth);
        workload.run();
        int injected = rig.backend.calls(hook) - before >= nth ? 1 : 0;
        rig.backend.disarm();
        boolean streamSurvived = true;
        try {
            workload.assertRecapturable();
        } catch (IllegalStateException closed) {
            streamSurvived = false; // only a fault in the stream's own close may take the stream away
        }
        assertThat(streamSurvived || hook == Hook.STREAM_CLOSE)
                .as(context + ": the stream captures again")
                .isTrue();
        if (injected == 1 && hook != Hook.FREE && !loggedByAStreamClose(rig.backend.lastFault())) {
            assertThat(workload.failures)
                    .as(context + ": the fault surfaced as an error")
                    .isNotEmpty();
        }
        workload.closeEverything();
        MemoryStats stats = rig.runtime.memoryStats();
        assertThat(stats.reservedBytes()).as(context + ": reserved after close").isZero();
        assertThat(stats.inUseBytes()).as(context + ": in use after close").isZero();
        assertThat(stats.pinnedBytes()).as(context + ": pinned after close").isZero();
        assertThat(stats.retainedByGraphsBytes())
                .as(context + ": retained after close")
                .isZero();
        assertThat(rig.backend.liveCommunicators())
                .as(context + ": every communicator closed")
                .isZero();
        long failedFrees = hook == Hook.FREE && injected == 1 ? 1 : 0;
        // A free that failed may be tried again later (a pool keeps a block it could not free): at most it leaks.
        assertThat(rig.backend.frees())
                .as(context + ": every allocation freed, but at most the one whose free failed")
                .isBetween(rig.backend.allocations() - failedFrees, rig.backend.allocations());
    }

    /**
     * Whether {@code fault} was thrown inside a stream's close, which logs the failure of the stream's outstanding work
     * instead of throwing it (its user has let go of the stream): the side stream's close in the workload.
     */
    private static boolean loggedByAStreamClose(Fault fault) {
        return fault != null
                && java.util.Arrays.stream(fault.getStackTrace())
                        .anyMatch(frame -> frame.getClassName().equals("dev.graphrt.core.runtime.CoreStream")
                                && frame.getMethodName().equals("close"));
    }

    @ParameterizedTest(name = "a fault in {0}")
    @EnumSource(Hook.class)
    void after_a_fault_in_any_hook_the_stream_captures_again_and_closing_frees_everything(Hook hook) {
        faultThenCheck(hook, 1, "first call of " + hook);
        faultThenCheck(hook, 3, "third call of " + hook);
    }

    static Stream<Arguments> seeds() {
        return IntStream.rangeClosed(1, 60).mapToObj(seed -> {
            Random random = new Random(seed * 7919L);
            Hook hook = Hook.values()[random.nextInt(Hook.values().length)];
            return Arguments.of(seed, hook, 1 + random.nextInt(6));
        });
    }

    @ParameterizedTest(name = "seed {0}: call {2} of {1} fails")
    @MethodSource("seeds")
    void a_seeded_random_campaign_of_faults_leaves_nothing_behind(int seed, Hook hook, int nth) {
        faultThenCheck(hook, nth, "seed " + seed + " (" + hook + " call " + nth + ")");
    }
}
