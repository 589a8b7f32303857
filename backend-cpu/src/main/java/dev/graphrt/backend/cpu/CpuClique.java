package dev.graphrt.backend.cpu;

import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.spi.CollectiveCall;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ranks of one cpu communicator meeting on their streams' worker threads. Each collective is two meetings: every
 * rank posts what it sends and waits until all have (the first), reads every rank's part into its own result, waits
 * until all have read (the second), and only then writes its result, so an in-place operation never overwrites what
 * another rank still reads. Every rank reduces in rank order, so all ranks get the same bits. A meeting is bounded: a
 * rank that does not come within the timeout breaks the clique, and every operation after that fails at once.
 */
final class CpuClique {
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED;

    private final int size;
    private final Duration timeout;
    private final CyclicBarrier barrier;
    /** What each rank sends in the collective now running; written before, read after the first meeting. */
    private final MemorySegment[] sends;

    CpuClique(int size, Duration timeout) {
        this.size = size;
        this.timeout = timeout;
        this.barrier = new CyclicBarrier(size);
        this.sends = new MemorySegment[size];
    }

    int size() {
        return size;
    }

    /** Rank {@code rank}'s part of {@code call}: {@code send} is what it sends, {@code recv} what it receives. */
    void run(int rank, CollectiveCall call, MemorySegment send, MemorySegment recv, String what) {
        sends[rank] = send;
        meet(rank, what);
        int[] result = switch (call) {
            case CollectiveCall.AllReduce r -> reduce(r.count(), 0, r.type(), r.op());
            case CollectiveCall.ReduceScatter r -> reduce(r.count(), rank * r.count(), r.type(), r.op());
            case CollectiveCall.AllGather g -> gather(g.count());
            case CollectiveCall.Broadcast b -> read(sends[b.root()], 0, words(b.count()));
        };
        meet(rank, what);
        MemorySegment.copy(result, 0, recv, WORD, 0, result.length);
    }

    private int[] reduce(long count, long first, ElementType type, ReduceOp op) {
        int n = words(count);
        int[] result = read(sends[0], first, n);
        for (int r = 1; r < size; r++) {
            MemorySegment part = sends[r];
            for (int i = 0; i < n; i++) {
                result[i] = combine(type, op, result[i], part.getAtIndex(WORD, first + i));
            }
        }
        return result;
    }

    private int[] gather(long count) {
        int n = words(count);
        int[] result = new int[Math.multiplyExact(n, size)];
        for (int r = 0; r < size; r++) {
            MemorySegment.copy(sends[r], WORD, 0, result, r * n, n);
        }
        return result;
    }

    private static int[] read(MemorySegment from, long first, int n) {
        int[] words = new int[n];
        MemorySegment.copy(from, WORD, first * 4, words, 0, n);
        return words;
    }

    /** {@code a op b} on the elements' bits. */
    static int combine(ElementType type, ReduceOp op, int a, int b) {
        return switch (type) {
            case INT32 ->
                switch (op) {
                    case SUM -> a + b;
                    case PRODUCT -> a * b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                };
            case FLOAT32 -> {
                float x = Float.intBitsToFloat(a);
                float y = Float.intBitsToFloat(b);
                yield Float.floatToRawIntBits(
                        switch (op) {
                            case SUM -> x + y;
                            case PRODUCT -> x * y;
                            case MAX -> Math.max(x, y);
                            case MIN -> Math.min(x, y);
                        });
            }
        };
    }

    private static int words(long count) {
        if (count > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException(
                    "the cpu backend's collectives take at most " + Integer.MAX_VALUE / 4 + " elements, were " + count);
        }
        return (int) count;
    }

    private void meet(int rank, String what) {
        try {
            barrier.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            throw new IllegalStateException(
                    what + ": not every rank came within " + timeout + " (rank " + rank
                            + " waited; every rank must call the same collectives in the same order)",
                    late);
        } catch (BrokenBarrierException broken) {
            throw new IllegalStateException(
                    what + ": the communicator broke (another rank did not come in time, or "
                            + "was interrupted); it cannot be used any more",
                    broken);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted while rank " + rank + " waited", interrupted);
        }
    }
}
