package dev.graphrt.backend.cpu.safety;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.GraphRT;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Where collectives meet the other features on cpu (two ranks, a runtime each): checked mode, whose guard bytes
 * surround every buffer an all-reduce writes, and the THREAD_LOCAL rule, which another thread's all-reduce on a
 * recording stream must obey like a launch.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CollectiveSeamsTest {
    private static final int N = 96;

    private static int[] words(int seed) {
        int[] x = new int[N];
        for (int i = 0; i < N; i++) {
            x[i] = i * 7 + seed * 131;
        }
        return x;
    }

    private static int[] sum(int[] a, int[] b) {
        int[] s = new int[N];
        for (int i = 0; i < N; i++) {
            s[i] = a[i] + b[i];
        }
        return s;
    }

    @Test
    void an_all_reduce_in_checked_mode_gives_every_rank_the_sum_eagerly_and_from_a_replayed_graph() throws Exception {
        RuntimeOptions checked = RuntimeOptions.defaults().backend("cpu").checked(true);
        try (GraphRuntime a = GraphRT.open(checked);
                GraphRuntime b = GraphRT.open(checked)) {
            List<GpuStream> streams = List.of(a.openStream(), b.openStream());
            List<Communicator> ranks = a.collectives().open(streams);
            List<Buffer> in =
                    List.of(streams.get(0).upload(words(1)), streams.get(1).upload(words(2)));
            List<Buffer> out =
                    List.of(streams.get(0).upload(new int[N]), streams.get(1).upload(new int[N]));
            for (int r = 0; r < 2; r++) {
                ranks.get(r).allReduce(in.get(r), out.get(r), ReduceOp.SUM, ElementType.INT32);
            }
            for (int r = 0; r < 2; r++) {
                assertThat(streams.get(r).readInts(out.get(r)))
                        .as("eager, rank %d", r)
                        .isEqualTo(sum(words(1), words(2)));
            }

            ExecutorService threads = Executors.newFixedThreadPool(2); // each rank captures on a thread of its own
            List<Future<Graph>> captures = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                captures.add(threads.submit(() -> streams.get(rank)
                        .capture(
                                CaptureOptions.defaults(),
                                s -> ranks.get(rank)
                                        .allReduce(in.get(rank), out.get(rank), ReduceOp.SUM, ElementType.INT32))));
            }
            List<Graph> graphs = new ArrayList<>();
            for (Future<Graph> capture : captures) {
                graphs.add(capture.get(60, TimeUnit.SECONDS));
            }
            threads.shutdown();
            streams.get(0).write(in.get(0), words(5));
            streams.get(1).write(in.get(1), words(9));
            for (int r = 0; r < 2; r++) {
                streams.get(r).write(out.get(r), new int[N]);
                graphs.get(r).replay();
            }
            for (int r = 0; r < 2; r++) {
                assertThat(streams.get(r).readInts(out.get(r)))
                        .as("replayed, rank %d", r)
                        .isEqualTo(sum(words(5), words(9)));
            }
            graphs.forEach(Graph::close);
            ranks.forEach(Communicator::close);
        }
    }

    @Test
    void an_all_reduce_from_another_thread_while_the_stream_records_thread_locally_is_refused_naming_both_threads()
            throws Exception {
        RuntimeOptions cpu = RuntimeOptions.defaults().backend("cpu");
        try (GraphRuntime a = GraphRT.open(cpu);
                GraphRuntime b = GraphRT.open(cpu)) {
            List<GpuStream> streams = List.of(a.openStream(), b.openStream());
            List<Communicator> ranks = a.collectives().open(streams);
            GpuStream stream = streams.get(0);
            Buffer in = stream.upload(words(3));
            Buffer out = stream.upload(new int[N]);
            stream.prepare(CaptureOptions.defaults().warmups(0));
            stream.beginCapture();

            Throwable refused = CompletableFuture.supplyAsync(() -> {
                        try {
                            ranks.get(0).allReduce(in, out, ReduceOp.SUM, ElementType.INT32);
                            return null;
                        } catch (RuntimeException e) {
                            return e;
                        }
                    })
                    .get(30, TimeUnit.SECONDS);

            assertThat(refused)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("allReduce")
                    .hasMessageContaining("THREAD_LOCAL")
                    .hasMessageContaining("thread '" + Thread.currentThread().getName() + "'");
            Graph graph = stream.endCapture();
            assertThat(graph.info().nodeCount())
                    .as("the refused all-reduce recorded nothing")
                    .isZero();
            graph.close();
            ranks.forEach(Communicator::close);
        }
    }
}
