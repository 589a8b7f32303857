package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.UpdateResult;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kernels that opt into programmatic dependent launch ({@code KernelSource.programmaticDependent()}) give exactly
 * the results of plain launches, on every backend: where {@code PROGRAMMATIC_DEPENDENT_LAUNCH} is declared they
 * start early and wait inside themselves, elsewhere they are ordinary launches. Checked eagerly, replayed, after an
 * update and a rebind, after writes and copies, across a fork/join, as a child graph and in checked mode.
 *
 * <p>And only opted-in kernels may start early: a kernel that did not opt in, launched right after a slow producer
 * that lets its dependents start at once, must see all of the producer's output. A backend that applied the
 * programmatic attribute to every kernel starts that consumer while the producer still runs, and fails here.
 *
 * <p>Group 31 of {@link CaptureConformanceKit}.
 */
public abstract class ProgrammaticDependentLaunchGroup extends KitFixture {
    /** Launches per chain: long enough that early starts overlap many times. */
    private static final int CHAIN = 256;

    private Kernel dependentPingPong;
    private Kernel slowProducer;

    @BeforeEach
    void compileTheOptedInKernels() {
        dependentPingPong = runtime.compile(KitKernels.DEPENDENT_PING_PONG);
        slowProducer = runtime.compile(KitKernels.SLOW_PRODUCER);
    }

    // ---- the chain ----------------------------------------------------------------------------------------

    /** {@code CHAIN} launches of {@code kernel}, ping-ponging between a and b, launch k adding {@code k + offset}. */
    private static void chain(GpuStream s, Kernel kernel, Buffer a, Buffer b, int offset) {
        for (int k = 0; k < CHAIN; k++) {
            launch(s, kernel, k % 2 == 0 ? a : b, k % 2 == 0 ? b : a, k + offset);
        }
    }

    /** The host model of {@link #chain}: where it ends (b after an odd count, a after an even one). */
    private static int[] chainModel(int[] x, int offset) {
        int[] v = x;
        for (int k = 0; k < CHAIN; k++) {
            v = KitKernels.pingPong(v, k + offset);
        }
        return v;
    }

    /** The buffer the chain's last launch writes. */
    private static Buffer chainEnd(Buffer a, Buffer b) {
        return CHAIN % 2 == 0 ? a : b;
    }

    @Test
    void a_long_chain_of_opted_in_kernels_gives_exactly_the_plain_chains_results_eagerly() {
        int[] x = KitKernels.pattern(N, 310);
        Buffer a = upload(x);
        Buffer b = poisoned();
        chain(stream, dependentPingPong, a, b, 0);
        int[] optedIn = read(chainEnd(a, b));

        stream.write(a, x);
        stream.write(b, KitKernels.poison(N));
        chain(stream, pingPong, a, b, 0);
        assertThat(optedIn)
                .as("the opted-in chain equals the plain chain")
                .isEqualTo(read(chainEnd(a, b)))
                .isEqualTo(chainModel(x, 0));
    }

    @Test
    void a_captured_chain_of_opted_in_kernels_replays_exactly_every_time() {
        Buffer a = poisoned();
        Buffer b = poisoned();
        Graph graph = capture(s -> chain(s, dependentPingPong, a, b, 5));
        for (int replay = 0; replay < 3; replay++) {
            int[] x = KitKernels.pattern(N, 311 + replay);
            stream.write(a, x);
            stream.write(b, KitKernels.poison(N));
            graph.replay();
            assertThat(read(chainEnd(a, b))).as("replay %d", replay).isEqualTo(chainModel(x, 5));
        }
    }

    @Test
    void an_updated_chain_of_opted_in_kernels_replays_its_new_steps() {
        Assumptions.assumeTrue(declares(Capability.GRAPH_UPDATE), "GRAPH_UPDATE not declared: group 19 checks it");
        int[] x = KitKernels.pattern(N, 314);
        Buffer a = poisoned();
        Buffer b = poisoned();
        Graph graph = capture(s -> chain(s, dependentPingPong, a, b, 0));
        UpdateResult result = graph.update(s -> chain(s, dependentPingPong, a, b, 1000));
        assertThat(result.applied()).as("%s", result).isTrue();
        stream.write(a, x);
        stream.write(b, KitKernels.poison(N));
        graph.replay();
        assertThat(read(chainEnd(a, b))).isEqualTo(chainModel(x, 1000));
    }

    @Test
    void a_rebound_chain_of_opted_in_kernels_reads_and_writes_the_new_buffer() {
        Assumptions.assumeTrue(declares(Capability.GRAPH_UPDATE), "GRAPH_UPDATE not declared: group 19 checks it");
        int[] x = KitKernels.pattern(N, 315);
        Buffer a = poisoned();
        Buffer b = poisoned();
        Buffer c = upload(x);
        Graph graph = capture(s -> chain(s, dependentPingPong, a, b, 0));
        assertThat(graph.rebind(a, c)).as("every launch of a patched").isEqualTo(CHAIN);
        stream.write(a, KitKernels.poison(N));
        stream.write(b, KitKernels.poison(N));
        graph.replay();
        assertThat(read(chainEnd(c, b))).isEqualTo(chainModel(x, 0));
        assertThat(read(a)).as("the old buffer is untouched").containsOnly(KitKernels.POISON);
    }

    // ---- only opted-in kernels start early ------------------------------------------------------------------

    /** The slow producer (in to mid), then {@code consumer} (mid to out): what the consumer must see. */
    private void produceThenConsume(GpuStream s, Kernel consumer, Buffer in, Buffer mid, Buffer out) {
        launch(s, slowProducer, in, mid, KitKernels.SLOW_ROUNDS);
        launch(s, consumer, mid, out, 9);
    }

    @Test
    void a_kernel_that_did_not_opt_in_sees_all_of_a_slow_producer_that_let_its_dependents_start_at_once() {
        int[] x = KitKernels.pattern(N, 316);
        int[] expected = KitKernels.addOne(KitKernels.slowProducer(x, KitKernels.SLOW_ROUNDS));
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        for (int round = 0; round < 4; round++) {
            stream.write(mid, KitKernels.poison(N));
            produceThenConsume(stream, addOne, in, mid, out);
            assertThat(read(out)).as("eager round %d", round).isEqualTo(expected);
        }
        Graph graph = capture(s -> produceThenConsume(s, addOne, in, mid, out));
        for (int replay = 0; replay < 4; replay++) {
            stream.write(mid, KitKernels.poison(N));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("replay %d", replay).isEqualTo(expected);
        }
    }

    @Test
    void an_opted_in_kernel_waits_for_a_slow_producer_that_let_it_start_at_once() {
        int[] x = KitKernels.pattern(N, 317);
        int[] expected = KitKernels.pingPong(KitKernels.slowProducer(x, KitKernels.SLOW_ROUNDS), 9);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        stream.write(mid, KitKernels.poison(N));
        produceThenConsume(stream, dependentPingPong, in, mid, out);
        assertThat(read(out)).as("eager").isEqualTo(expected);
        Graph graph = capture(s -> produceThenConsume(s, dependentPingPong, in, mid, out));
        for (int replay = 0; replay < 3; replay++) {
            stream.write(mid, KitKernels.poison(N));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("replay %d", replay).isEqualTo(expected);
        }
    }

    // ---- where opted-in kernels meet the other operations -----------------------------------------------------

    /**
     * A write (unless {@code x} is null), an opted-in launch reading it, a device copy (unless {@code copy} is null:
     * software graphs hold launches only), an opted-in launch reading the copy, a plain one.
     */
    private void mixedStep(GpuStream s, Buffer in, int[] x, Buffer mid, Buffer copy, Buffer out, Buffer last) {
        if (x != null) {
            s.write(in, x);
        }
        launch(s, dependentPingPong, in, mid, 1);
        if (copy != null) {
            s.copy(mid, copy);
        }
        launch(s, dependentPingPong, copy != null ? copy : mid, out, 2);
        launch(s, mulTwo, out, last);
    }

    private static int[] mixedModel(int[] x) {
        return KitKernels.mulTwo(KitKernels.pingPong(KitKernels.pingPong(x, 1), 2));
    }

    @Test
    void opted_in_kernels_after_writes_and_copies_see_what_came_before_them() {
        Buffer in = poisoned();
        Buffer mid = poisoned();
        Buffer copy = poisoned();
        Buffer out = poisoned();
        Buffer last = poisoned();
        int[] x = KitKernels.pattern(N, 318);
        mixedStep(stream, in, x, mid, copy, out, last);
        assertThat(read(last)).as("eager").isEqualTo(mixedModel(x));

        int[] y = KitKernels.pattern(N, 319);
        boolean recordsWrites = declares(Capability.RECORDS_WRITES); // else the write stays outside the graph
        Buffer recordedCopy = runtime.graphKind() == dev.graphrt.api.GraphKind.HARDWARE ? copy : null;
        Graph graph = capture(s -> mixedStep(s, in, recordsWrites ? y : null, mid, recordedCopy, out, last));
        for (Buffer buffer : new Buffer[] {in, mid, copy, out, last}) {
            stream.write(buffer, KitKernels.poison(N));
        }
        if (!recordsWrites) {
            stream.write(in, y);
        }
        graph.replay();
        assertThat(read(last)).as("replayed").isEqualTo(mixedModel(y));
    }

    @Test
    void an_opted_in_kernel_on_a_joined_stream_waits_for_the_producer_on_the_other() {
        Assumptions.assumeTrue(
                declares(Capability.MULTI_STREAM_CAPTURE),
                "MULTI_STREAM_CAPTURE not declared: group 24 checks the refusal");
        int[] x = KitKernels.pattern(N, 320);
        int[] expected = KitKernels.pingPong(KitKernels.slowProducer(x, KitKernels.SLOW_ROUNDS), 9);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        try (GpuStream side = runtime.openStream()) {
            java.util.function.Consumer<GpuStream> step = s -> {
                launch(s, slowProducer, in, mid, KitKernels.SLOW_ROUNDS);
                side.waitFor(s.record());
                launch(side, dependentPingPong, mid, out, 9);
                s.waitFor(side.record());
            };
            step.accept(stream);
            assertThat(read(out)).as("eager").isEqualTo(expected);
            Graph graph = capture(step);
            stream.write(mid, KitKernels.poison(N));
            stream.write(out, KitKernels.poison(N));
            graph.replay();
            assertThat(read(out)).as("replayed").isEqualTo(expected);
        }
    }

    @Test
    void a_graph_of_opted_in_kernels_replayed_inside_a_capture_runs_exactly_as_a_child() {
        Assumptions.assumeTrue(
                declares(Capability.NESTED_GRAPHS), "NESTED_GRAPHS not declared: group 15 checks the refusal");
        int[] x = KitKernels.pattern(N, 321);
        Buffer a = upload(x);
        Buffer b = poisoned();
        Buffer out = poisoned();
        Graph inner = capture(s -> chain(s, dependentPingPong, a, b, 0));
        Graph outer = capture(s -> {
            s.replay(inner);
            launch(s, dependentPingPong, chainEnd(a, b), out, 77);
        });
        for (int replay = 0; replay < 2; replay++) {
            stream.write(a, x);
            stream.write(b, KitKernels.poison(N));
            stream.write(out, KitKernels.poison(N));
            outer.replay();
            assertThat(read(out)).as("replay %d", replay).isEqualTo(KitKernels.pingPong(chainModel(x, 0), 77));
        }
    }

    @Test
    void checked_mode_runs_and_captures_a_chain_of_opted_in_kernels_exactly() {
        GraphRuntime checked = openCheckedRuntime();
        try (checked;
                GpuStream s = checked.openStream()) {
            Kernel kernel = checked.compile(KitKernels.DEPENDENT_PING_PONG);
            int[] x = KitKernels.pattern(N, 322);
            Buffer a = s.upload(x);
            Buffer b = s.upload(KitKernels.poison(N));
            chain(s, kernel, a, b, 3);
            assertThat(s.readInts(chainEnd(a, b))).as("eager").isEqualTo(chainModel(x, 3));
            Graph graph = s.capture(dev.graphrt.api.CaptureOptions.defaults(), g -> chain(g, kernel, a, b, 4));
            try (graph) {
                s.write(a, x);
                s.write(b, KitKernels.poison(N));
                graph.replay();
                assertThat(s.readInts(chainEnd(a, b))).as("replayed").isEqualTo(chainModel(x, 4));
            }
            s.synchronize();
        }
    }
}
