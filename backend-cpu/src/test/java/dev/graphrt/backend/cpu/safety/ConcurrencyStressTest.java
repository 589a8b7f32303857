package dev.graphrt.backend.cpu.safety;

import static dev.graphrt.backend.cpu.safety.Rig.BYTES;
import static dev.graphrt.backend.cpu.safety.Rig.N;
import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.conformance.KitKernels;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Bounded stress (about 8 s): eight threads with a stream each, and two threads sharing a stream, launch,
 * close, capture and replay at once; the sharing threads use buffers another stream owns and close them
 * while their launches may still be pending. Every result is compared exactly.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ConcurrencyStressTest {
    private static final long DURATION_NANOS = 8_000_000_000L;

    @Test
    void eight_streams_and_a_shared_one_compute_exactly_while_buffers_and_graphs_close_concurrently() throws Exception {
        try (Rig rig = new Rig()) {
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong checks = new AtomicLong();
            long deadline = System.nanoTime() + DURATION_NANOS;
            GpuStream shared = rig.runtime.openStream();
            GpuStream owner = rig.runtime.openStream();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                threads.add(new Thread(() -> ownStream(rig, seed, deadline, checks, failures), "own-" + t));
            }
            for (int t = 0; t < 2; t++) {
                int seed = 100 + t;
                threads.add(new Thread(
                        () -> sharedStream(rig, shared, owner, seed, deadline, checks, failures), "shared-" + t));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(failures)
                    .as(
                            "every thread's failures (first: %s)",
                            failures.isEmpty()
                                    ? "none"
                                    : java.util.Arrays.toString(failures.peek().getStackTrace()))
                    .isEmpty();
            assertThat(checks.get()).as("results compared").isGreaterThan(100);
            shared.close();
            owner.close();
            assertThat(rig.runtime.memoryStats().inUseBytes())
                    .as("nothing left held: %s", rig.runtime.memoryStats())
                    .isZero();
        }
    }

    private static void ownStream(
            Rig rig, int seed, long deadline, AtomicLong checks, ConcurrentLinkedQueue<Throwable> failures) {
        try (GpuStream stream = rig.runtime.openStream()) {
            for (int round = 0; System.nanoTime() < deadline; round++) {
                int[] x = KitKernels.pattern(N, seed * 1000 + round);
                Buffer in = stream.upload(x);
                Buffer out = stream.allocate(BYTES);
                if (round % 3 == 0) {
                    Graph graph = stream.capture(CaptureOptions.defaults().warmups(round % 2), s -> {
                        try (Buffer temp = s.allocate(BYTES)) {
                            Rig.launch(s, rig.mulTwo, in, temp);
                            Rig.launch(s, rig.addOne, temp, out);
                        }
                    });
                    in.close(); // the graph keeps it
                    graph.replay();
                    assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(KitKernels.mulTwo(x)));
                    graph.replay();
                    graph.close();
                } else {
                    Rig.launch(stream, rig.addOne, in, out);
                    in.close(); // the launch keeps it
                    assertThat(stream.readInts(out)).isEqualTo(KitKernels.addOne(x));
                }
                out.close();
                checks.incrementAndGet();
            }
        } catch (Throwable failure) {
            failures.add(failure);
        }
    }

    private static void sharedStream(
            Rig rig,
            GpuStream shared,
            GpuStream owner,
            int seed,
            long deadline,
            AtomicLong checks,
            ConcurrentLinkedQueue<Throwable> failures) {
        try {
            for (int round = 0; System.nanoTime() < deadline; round++) {
                int[] x = KitKernels.pattern(N, seed * 1000 + round);
                Buffer in = owner.upload(x);
                owner.synchronize();
                Buffer out = shared.allocate(BYTES);
                Rig.launch(shared, rig.mulTwo, in, out);
                in.close(); // owner's buffer, closed while the shared stream's launch may still be pending
                Buffer churn = owner.upload(Rig.constant(-7)); // would take in's slot if it were freed early
                assertThat(shared.readInts(out)).isEqualTo(KitKernels.mulTwo(x));
                assertThat(owner.readInts(churn)).isEqualTo(Rig.constant(-7));
                churn.close();
                out.close();
                checks.incrementAndGet();
            }
        } catch (Throwable failure) {
            failures.add(failure);
        }
    }
}
