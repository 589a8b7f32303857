package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.Collectives;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.CommunicatorId;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.UnsupportedCapabilityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Group 32: collectives ({@code COLLECTIVES}). Where declared, a communicator of {@link
 * CaptureConformanceKit#collectiveRanks()} ranks (one runtime each; rank 0 is the group's own stream) reduces,
 * gathers, scatters and broadcasts distinct per-rank data to exactly the host's result on every rank, eagerly and
 * replayed 100 times from graphs captured with the step around it; a communicator closed while a graph uses it keeps
 * working for that graph and refuses everything else; bad arguments, a rank of another backend and a communicator made
 * while recording are refused naming what is wrong. Where not declared, {@code collectives()} is refused with the
 * fixed message.
 */
public abstract class CollectivesGroup extends KitFixture {
    private static final int REPLAYS = 100;
    private static final long WAIT_SECONDS = 120;

    /** The ranks' streams (rank 0: the group's own) and their communicators. */
    private record Ranks(List<GraphRuntime> runtimes, List<GpuStream> streams, List<Communicator> communicators) {
        int size() {
            return streams.size();
        }
    }

    private void assumeDeclared() {
        Assumptions.assumeTrue(declares(Capability.COLLECTIVES), "COLLECTIVES not declared: the last test checks it");
    }

    private Ranks openRanks() {
        int size = kit().collectiveRanks();
        List<GraphRuntime> runtimes = new ArrayList<>(List.of(runtime));
        List<GpuStream> streams = new ArrayList<>(List.of(stream));
        for (int rank = 1; rank < size; rank++) {
            GraphRuntime other = track(kit().openRankRuntime(rank));
            runtimes.add(other);
            streams.add(track(other.openStream()));
        }
        List<Communicator> communicators = runtime.collectives().open(streams);
        communicators.forEach(this::track);
        return new Ranks(runtimes, streams, communicators);
    }

    /** One buffer per rank, {@code data.apply(rank)} uploaded on the rank's stream. */
    private List<Buffer> perRank(Ranks ranks, IntFunction<int[]> data) {
        List<Buffer> buffers = new ArrayList<>();
        for (int rank = 0; rank < ranks.size(); rank++) {
            buffers.add(track(ranks.streams().get(rank).upload(data.apply(rank))));
        }
        return buffers;
    }

    private List<int[]> readAll(Ranks ranks, List<Buffer> buffers) {
        List<int[]> out = new ArrayList<>();
        for (int rank = 0; rank < ranks.size(); rank++) {
            out.add(ranks.streams().get(rank).readInts(buffers.get(rank)));
        }
        return out;
    }

    /** Small words (products of a few ranks stay exact), distinct per rank and element. */
    private static int[] small(int rank, int seed) {
        int[] x = KitKernels.pattern(N, seed + 17 * rank);
        for (int i = 0; i < N; i++) {
            x[i] = x[i] % 7;
        }
        return x;
    }

    /** Integers as float bits: exact under any order of summation. */
    private static int[] floats(int[] words) {
        int[] bits = new int[words.length];
        for (int i = 0; i < words.length; i++) {
            bits[i] = Float.floatToRawIntBits(words[i]);
        }
        return bits;
    }

    private static int combine(ReduceOp op, ElementType type, int a, int b) {
        if (type == ElementType.FLOAT32) {
            float x = Float.intBitsToFloat(a);
            float y = Float.intBitsToFloat(b);
            return Float.floatToRawIntBits(
                    switch (op) {
                        case SUM -> x + y;
                        case PRODUCT -> x * y;
                        case MAX -> Math.max(x, y);
                        case MIN -> Math.min(x, y);
                    });
        }
        return switch (op) {
            case SUM -> a + b;
            case PRODUCT -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
    }

    /** The host's reduction of every rank's {@code inputs} over {@code n} words from {@code first}. */
    private static int[] reduce(List<int[]> inputs, ReduceOp op, ElementType type, int first, int n) {
        int[] out = java.util.Arrays.copyOfRange(inputs.get(0), first, first + n);
        for (int r = 1; r < inputs.size(); r++) {
            for (int i = 0; i < n; i++) {
                out[i] = combine(op, type, out[i], inputs.get(r)[first + i]);
            }
        }
        return out;
    }

    // ---- declared: exact results --------------------------------------------------------------------------

    @Test
    void an_all_reduce_of_distinct_per_rank_data_gives_the_exact_result_on_every_rank_for_every_op() {
        assumeDeclared();
        Ranks ranks = openRanks();
        Collectives collectives = runtime.collectives();
        for (ElementType type : ElementType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                int seed = 400 + 10 * type.ordinal() + op.ordinal();
                List<int[]> inputs = new ArrayList<>();
                for (int rank = 0; rank < ranks.size(); rank++) {
                    int[] words = op == ReduceOp.PRODUCT ? small(rank, seed) : KitKernels.pattern(N, seed + 31 * rank);
                    inputs.add(
                            type == ElementType.FLOAT32
                                    ? floats(op == ReduceOp.PRODUCT ? words : small(rank, seed))
                                    : words);
                }
                List<Buffer> send = perRank(ranks, inputs::get);
                List<Buffer> recv = perRank(ranks, rank -> KitKernels.poison(N));
                collectives.group(() -> {
                    for (int rank = 0; rank < ranks.size(); rank++) {
                        ranks.communicators().get(rank).allReduce(send.get(rank), recv.get(rank), op, type);
                    }
                });
                int[] expected = reduce(inputs, op, type, 0, N);
                List<int[]> got = readAll(ranks, recv);
                for (int rank = 0; rank < ranks.size(); rank++) {
                    assertThat(got.get(rank))
                            .as("%s %s on rank %d of %d", op, type, rank, ranks.size())
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void an_in_place_all_reduce_gives_every_rank_the_sum() {
        assumeDeclared();
        Ranks ranks = openRanks();
        List<int[]> inputs = new ArrayList<>();
        for (int rank = 0; rank < ranks.size(); rank++) {
            inputs.add(KitKernels.pattern(N, 470 + rank));
        }
        List<Buffer> data = perRank(ranks, inputs::get);
        runtime.collectives().group(() -> {
            for (int rank = 0; rank < ranks.size(); rank++) {
                ranks.communicators()
                        .get(rank)
                        .allReduce(data.get(rank), data.get(rank), ReduceOp.SUM, ElementType.INT32);
            }
        });
        int[] expected = reduce(inputs, ReduceOp.SUM, ElementType.INT32, 0, N);
        readAll(ranks, data).forEach(got -> assertThat(got).isEqualTo(expected));
    }

    @Test
    void all_gather_reduce_scatter_and_broadcast_give_the_exact_result_on_every_rank() {
        assumeDeclared();
        Ranks ranks = openRanks();
        int size = ranks.size();
        List<int[]> inputs = new ArrayList<>();
        List<int[]> wide = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            inputs.add(KitKernels.pattern(N, 480 + rank));
            wide.add(KitKernels.pattern(N * size, 490 + rank));
        }
        List<Buffer> send = perRank(ranks, inputs::get);
        List<Buffer> wideSend = perRank(ranks, wide::get);
        List<Buffer> gathered = perRank(ranks, rank -> KitKernels.poison(N * size));
        List<Buffer> scattered = perRank(ranks, rank -> KitKernels.poison(N));
        List<Buffer> broadcast = perRank(ranks, rank -> KitKernels.poison(N));
        int root = size - 1;
        runtime.collectives().group(() -> {
            for (int rank = 0; rank < size; rank++) {
                Communicator c = ranks.communicators().get(rank);
                c.allGather(send.get(rank), gathered.get(rank), ElementType.INT32);
                c.reduceScatter(wideSend.get(rank), scattered.get(rank), ReduceOp.MAX, ElementType.INT32);
                c.broadcast(send.get(rank), broadcast.get(rank), root, ElementType.INT32);
            }
        });
        int[] all = new int[N * size];
        for (int rank = 0; rank < size; rank++) {
            System.arraycopy(inputs.get(rank), 0, all, rank * N, N);
        }
        List<int[]> gatheredOut = readAll(ranks, gathered);
        List<int[]> scatteredOut = readAll(ranks, scattered);
        List<int[]> broadcastOut = readAll(ranks, broadcast);
        for (int rank = 0; rank < size; rank++) {
            assertThat(gatheredOut.get(rank)).as("all-gather on rank %d", rank).isEqualTo(all);
            assertThat(scatteredOut.get(rank))
                    .as("reduce-scatter on rank %d", rank)
                    .isEqualTo(reduce(wide, ReduceOp.MAX, ElementType.INT32, rank * N, N));
            assertThat(broadcastOut.get(rank))
                    .as("broadcast from rank %d on rank %d", root, rank)
                    .isEqualTo(inputs.get(root));
        }
    }

    // ---- declared: captured ---------------------------------------------------------------------------------

    /** The step of each rank: add one (in to mid), all-reduce (mid to out). */
    private static void step(GpuStream s, Kernel kernel, Communicator communicator, Buffer in, Buffer mid, Buffer out) {
        launch(s, kernel, in, mid);
        communicator.allReduce(mid, out, ReduceOp.SUM, ElementType.INT32);
    }

    /**
     * Captures every rank's step at once, one thread per rank (a rank's warm-up all-reduce waits for the others', as
     * one process per GPU would), and returns the graphs in rank order.
     */
    private List<Graph> captureEveryRank(
            Ranks ranks, List<Kernel> kernels, List<Buffer> in, List<Buffer> mid, List<Buffer> out) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(ranks.size());
        try {
            List<Future<Graph>> captures = new ArrayList<>();
            for (int rank = 0; rank < ranks.size(); rank++) {
                int r = rank;
                GpuStream s = ranks.streams().get(r);
                captures.add(threads.submit(() -> s.capture(
                        CaptureOptions.defaults(),
                        cs -> step(
                                cs, kernels.get(r), ranks.communicators().get(r), in.get(r), mid.get(r), out.get(r)))));
            }
            List<Graph> graphs = new ArrayList<>();
            for (Future<Graph> capture : captures) {
                graphs.add(track(capture.get(WAIT_SECONDS, TimeUnit.SECONDS)));
            }
            return graphs;
        } finally {
            threads.shutdownNow();
        }
    }

    private List<Kernel> addOneOnEveryRank(Ranks ranks) {
        List<Kernel> kernels = new ArrayList<>(List.of(addOne));
        for (int rank = 1; rank < ranks.size(); rank++) {
            kernels.add(ranks.runtimes().get(rank).compile(KitKernels.ADD_ONE));
        }
        return kernels;
    }

    @Test
    void an_all_reduce_captured_with_its_step_replays_exactly_100_times_on_every_rank() throws Exception {
        assumeDeclared();
        Ranks ranks = openRanks();
        List<Kernel> kernels = addOneOnEveryRank(ranks);
        List<Buffer> in = perRank(ranks, rank -> KitKernels.pattern(N, 500 + rank));
        List<Buffer> mid = perRank(ranks, rank -> KitKernels.poison(N));
        List<Buffer> out = perRank(ranks, rank -> KitKernels.poison(N));
        List<Graph> graphs = captureEveryRank(ranks, kernels, in, mid, out);
        for (int replay = 0; replay < REPLAYS; replay++) {
            List<int[]> inputs = new ArrayList<>();
            for (int rank = 0; rank < ranks.size(); rank++) {
                int[] x = KitKernels.pattern(N, 600 + replay * 7 + rank);
                inputs.add(KitKernels.addOne(x));
                GpuStream s = ranks.streams().get(rank);
                s.write(in.get(rank), x);
                s.write(out.get(rank), KitKernels.poison(N));
                graphs.get(rank).replay();
            }
            int[] expected = reduce(inputs, ReduceOp.SUM, ElementType.INT32, 0, N);
            List<int[]> got = readAll(ranks, out);
            for (int rank = 0; rank < ranks.size(); rank++) {
                assertThat(got.get(rank))
                        .as("replay %d on rank %d", replay, rank)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void a_communicator_closed_while_a_graph_still_uses_it_is_held_for_the_graph_and_refuses_everything_else()
            throws Exception {
        assumeDeclared();
        Ranks ranks = openRanks();
        List<Kernel> kernels = addOneOnEveryRank(ranks);
        List<Buffer> in = perRank(ranks, rank -> KitKernels.pattern(N, 700 + rank));
        List<Buffer> mid = perRank(ranks, rank -> KitKernels.poison(N));
        List<Buffer> out = perRank(ranks, rank -> KitKernels.poison(N));
        List<Graph> graphs = captureEveryRank(ranks, kernels, in, mid, out);
        ranks.communicators().forEach(Communicator::close);
        for (int replay = 0; replay < 3; replay++) {
            List<int[]> inputs = new ArrayList<>();
            for (int rank = 0; rank < ranks.size(); rank++) {
                int[] x = KitKernels.pattern(N, 710 + replay * 7 + rank);
                inputs.add(KitKernels.addOne(x));
                ranks.streams().get(rank).write(in.get(rank), x);
                ranks.streams().get(rank).write(out.get(rank), KitKernels.poison(N));
                graphs.get(rank).replay();
            }
            int[] expected = reduce(inputs, ReduceOp.SUM, ElementType.INT32, 0, N);
            readAll(ranks, out)
                    .forEach(got -> assertThat(got).as("a replay after close").isEqualTo(expected));
        }
        Communicator closed = ranks.communicators().get(0);
        assertThat(closed.isClosed()).isTrue();
        int[] before = read(out.get(0));
        assertThatThrownBy(() -> closed.allReduce(in.get(0), out.get(0), ReduceOp.SUM, ElementType.INT32))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allReduce")
                .hasMessageContaining("is closed");
        assertThat(read(out.get(0))).as("the refused all-reduce wrote nothing").isEqualTo(before);
        graphs.forEach(Graph::close);
        stream.synchronize();
    }

    // ---- declared: refusals ----------------------------------------------------------------------------------

    @Test
    void a_communicator_refuses_bad_arguments_naming_them_and_writes_nothing() {
        assumeDeclared();
        CommunicatorId id = runtime.collectives().newId();
        Communicator one = track(runtime.collectives().join(id, 0, 1, stream));
        int[] x = KitKernels.pattern(N, 800);
        Buffer send = upload(x);
        Buffer recv = poisoned();
        Buffer shorter = track(stream.allocate(BYTES - 4));
        Buffer ragged = track(stream.allocate(6));
        assertThatThrownBy(() -> one.allReduce(send, shorter, ReduceOp.SUM, ElementType.INT32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("recv:");
        assertThatThrownBy(() -> one.allReduce(ragged, recv, ReduceOp.SUM, ElementType.FLOAT32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("send:")
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> one.broadcast(send, recv, 1, ElementType.INT32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("root");
        assertThatThrownBy(() -> one.allReduce(send, recv, null, ElementType.INT32))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("op");
        GraphRuntime other = track(openRuntime());
        GpuStream otherStream = track(other.openStream());
        Buffer foreign = track(otherStream.upload(x));
        assertThatThrownBy(() -> one.allReduce(foreign, recv, ReduceOp.SUM, ElementType.INT32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("send:")
                .hasMessageContaining("another runtime");
        assertThat(read(recv)).as("nothing was enqueued").containsOnly(KitKernels.POISON);
        one.allReduce(send, recv, ReduceOp.SUM, ElementType.INT32);
        assertThat(read(recv)).as("one rank's sum is its own data").isEqualTo(x);
        assertThat(CommunicatorId.fromHex(id.toString())).isEqualTo(id);
        assertThat(one.rank()).isZero();
        assertThat(one.size()).isOne();
        assertThat(one.stream()).isSameAs(stream);
    }

    @Test
    void open_refuses_a_stream_of_another_backend_and_two_ranks_on_one_runtime_naming_the_stream() {
        assumeDeclared();
        GpuStream second = track(runtime.openStream());
        assertThatThrownBy(() -> runtime.collectives().open(List.of(stream, second)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("streams[1]:")
                .hasMessageContaining("same runtime");
        GraphRuntime foreign = track(kit().openOtherBackend(runtime.backendName()));
        GpuStream foreignStream = track(foreign.openStream());
        assertThatThrownBy(() -> runtime.collectives().open(List.of(stream, foreignStream)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("streams[1]:")
                .hasMessageContaining("the " + foreign.backendName() + " backend");
        assertThatThrownBy(
                        () -> runtime.collectives().join(runtime.collectives().newId(), 0, 1, foreignStream))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("stream:")
                .hasMessageContaining(foreign.backendName());
        assertThatThrownBy(
                        () -> runtime.collectives().join(runtime.collectives().newId(), 1, 1, stream))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("rank");
    }

    @Test
    void a_communicator_is_not_made_while_the_stream_records_and_the_capture_stays_intact() {
        assumeDeclared();
        int[] x = KitKernels.pattern(N, 820);
        Buffer in = upload(x);
        Buffer out = poisoned();
        stream.prepare();
        stream.beginCapture();
        launch(stream, addOne, in, out);
        assertThatThrownBy(
                        () -> runtime.collectives().join(runtime.collectives().newId(), 0, 1, stream))
                .isInstanceOf(CaptureRejectedException.class)
                .hasMessageContaining("still intact");
        Graph graph = track(stream.endCapture());
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
    }

    @Test
    void closing_the_runtime_closes_the_communicators_its_streams_still_have() {
        assumeDeclared();
        GraphRuntime other = openRuntime();
        GpuStream s = other.openStream();
        Communicator c = other.collectives().join(other.collectives().newId(), 0, 1, s);
        other.close();
        assertThat(c.isClosed()).as("closed with its runtime").isTrue();
        assertThatThrownBy(() -> other.collectives()).isInstanceOf(IllegalStateException.class);
    }

    // ---- undeclared -----------------------------------------------------------------------------------------

    @Test
    void without_COLLECTIVES_collectives_are_refused_with_the_fixed_message() {
        Assumptions.assumeFalse(declares(Capability.COLLECTIVES), "COLLECTIVES declared: the tests above check it");
        assertThatThrownBy(() -> runtime.collectives())
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessage(runtime.backendName() + " backend does not support COLLECTIVES: collectives()");
    }
}
