package dev.graphrt.backend.cpu;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.OutOfBoundsAccess;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * An asynchronous stream: operations collect in an open batch (like a command encoder) and a batch is
 * handed to the stream's worker thread when it fills, on flush, and before any fence or host read. The
 * worker runs operations strictly in order. A failing operation is kept and reported by the next
 * synchronising call; later operations still run, as on a device. Its graphs are software graphs: the stream is
 * its own {@link SoftwareGraphs}, sealing a recording into a {@link CpuGraph} of resolved launches.
 */
final class CpuStream implements BackendStream, SoftwareGraphs {
    private static final int BATCH_LIMIT = 256;

    /** A point in the stream: the number of operations enqueued before it. */
    private record CpuFence(long sequence) implements Fence {}

    /** Longest a worker waits for another stream in {@link #waitFor}. */
    static final Duration CROSS_STREAM_WAIT = Duration.ofSeconds(60);

    private final ForkJoinPool pool;
    private final ThreadPoolExecutor worker;
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final Object progress = new Object();
    /** Batches handed to the worker and not yet taken, at most; the stream waits for room beyond it. */
    private static final int QUEUED_BATCHES = 1024;

    private Batch open = new Batch();
    /** Batches the worker ran and emptied, handed back for the next ones: handing a batch over allocates nothing. */
    private final ArrayBlockingQueue<Batch> spareBatches = new ArrayBlockingQueue<>(64);
    /**
     * The last launch, prepared, reused while the core passes the same kernel, dims and bindings (the core hands
     * the same immutable bindings to a launch with the arguments of the one before): such a launch allocates nothing.
     */
    private LastLaunch lastLaunch; // null before the first launch

    private record LastLaunch(CompiledKernel kernel, LaunchDims dims, Bindings bindings, Runnable task) {}

    private long enqueued;
    private volatile long completed;

    CpuStream(int id, ForkJoinPool pool) {
        this.pool = pool;
        // one thread, and an array queue: handing a batch over allocates no queue node
        this.worker = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(QUEUED_BATCHES),
                task -> {
                    Thread thread = new Thread(task, "graphrt-cpu-stream-" + id);
                    thread.setDaemon(true);
                    return thread;
                },
                CpuStream::waitForRoom);
    }

    /** The operations the worker runs next, in order; recycled once run. */
    private final class Batch implements Runnable {
        final List<Runnable> operations = new ArrayList<>(BATCH_LIMIT);

        @Override
        public void run() {
            runBatch(this);
        }
    }

    private void enqueue(Runnable operation) {
        open.operations.add(operation);
        enqueued++;
        if (open.operations.size() >= BATCH_LIMIT) {
            submitOpenBatch();
        }
    }

    private void submitOpenBatch() {
        if (open.operations.isEmpty()) {
            return;
        }
        Batch batch = open;
        Batch spare = spareBatches.poll();
        open = spare != null ? spare : new Batch();
        worker.execute(batch);
    }

    /**
     * With {@value #QUEUED_BATCHES} batches queued, the stream waits for the worker to take one, as a device's queue
     * holds its submitter back; bounded by {@link #CROSS_STREAM_WAIT}. A closed worker refuses the batch.
     */
    private static void waitForRoom(Runnable batch, ThreadPoolExecutor executor) {
        long deadline = System.nanoTime() + CROSS_STREAM_WAIT.toNanos();
        boolean interrupted = false;
        try {
            while (!executor.isShutdown()) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new WaitTimeoutException(
                            "the cpu stream's worker took no batch for " + CROSS_STREAM_WAIT.toSeconds() + " s, with "
                                    + QUEUED_BATCHES + " batches queued",
                            CROSS_STREAM_WAIT);
                }
                try {
                    if (executor.getQueue().offer(batch, 10, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            throw new RejectedExecutionException("the cpu stream is closed");
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void runBatch(Batch batch) {
        for (Runnable operation : batch.operations) {
            try {
                operation.run();
            } catch (RuntimeException | Error failure) {
                errors.add(failure);
            }
            completed++;
        }
        batch.operations.clear();
        spareBatches.offer(batch); // dropped when enough are spare
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        LastLaunch previous = lastLaunch;
        if (previous == null
                || previous.kernel() != kernel
                || previous.bindings() != bindings
                || !previous.dims().equals(dims)) {
            PreparedLaunch launch = new PreparedLaunch((CpuCompiler.CpuKernel) kernel, dims, bindings);
            previous = new LastLaunch(kernel, dims, bindings, () -> launch.run(pool));
            lastLaunch = previous;
        }
        enqueue(previous.task());
        if (((CpuCompiler.CpuKernel) kernel).meetsOtherRanks()) {
            submitOpenBatch(); // other ranks wait for this one's part
        }
    }

    @Override
    public void write(DeviceSlice dst, MemorySegment src) {
        MemorySegment copy =
                Arena.ofAuto().allocate(src.byteSize(), CpuMemory.ALIGNMENT).copyFrom(src);
        MemorySegment target = CpuMemory.segmentOf(dst);
        enqueue(() -> MemorySegment.copy(copy, 0, target, 0, copy.byteSize()));
    }

    /** Host memory on both sides, also for another cpu runtime's slice: one copy in stream order. */
    @Override
    public boolean copy(DeviceSlice src, DeviceSlice dst) {
        MemorySegment from = CpuMemory.segmentOf(src);
        MemorySegment to = CpuMemory.segmentOf(dst);
        enqueue(() -> MemorySegment.copy(from, 0, to, 0, from.byteSize()));
        return true;
    }

    @Override
    public void read(DeviceSlice src, MemorySegment dst) {
        awaitSequence(enqueued);
        MemorySegment.copy(CpuMemory.segmentOf(src), 0, dst, 0, dst.byteSize());
        throwFirstError();
    }

    @Override
    public void flush() {
        submitOpenBatch();
    }

    @Override
    public Fence recordFence() {
        submitOpenBatch();
        return new CpuFence(enqueued);
    }

    @Override
    public boolean isComplete(Fence fence) {
        return completed >= ((CpuFence) fence).sequence();
    }

    @Override
    public void await(Fence fence) {
        awaitSequence(((CpuFence) fence).sequence());
    }

    private void awaitSequence(long sequence) {
        submitOpenBatch();
        synchronized (progress) {
            while (completed < sequence) {
                try {
                    progress.wait();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the cpu stream", interrupted);
                }
            }
        }
    }

    /** A timed wait on the worker's progress; an interrupt does not cut it short (it is bounded) but is kept. */
    @Override
    public boolean await(Fence fence, Duration timeout) {
        submitOpenBatch();
        return awaitCompleted(((CpuFence) fence).sequence(), timeout);
    }

    /** Waits for the worker to complete {@code sequence} operations; touches only thread-safe state. */
    private boolean awaitCompleted(long sequence, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            synchronized (progress) {
                while (completed < sequence) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(progress, left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                return true;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The worker waits for {@code other}'s work before {@code fence} before running what comes next here, at most
     * {@link #CROSS_STREAM_WAIT} (then the stream reports a failure and goes on, rather than hang forever on a
     * cycle of waits).
     */
    @Override
    public boolean waitFor(BackendStream other, Fence fence) {
        if (!(other instanceof CpuStream source)) {
            return false;
        }
        long sequence = ((CpuFence) fence).sequence();
        enqueue(() -> {
            if (!source.awaitCompleted(sequence, CROSS_STREAM_WAIT)) { // recordFence submitted its work
                throw new IllegalStateException("waited " + CROSS_STREAM_WAIT.toSeconds() + " s for another cpu stream "
                        + "to reach operation " + sequence + " (waitFor); do two streams wait for each other?");
            }
        });
        return true;
    }

    @Override
    public void synchronize() {
        awaitSequence(enqueued);
        throwFirstError();
    }

    private void throwFirstError() {
        List<Throwable> failures = drainErrors();
        if (failures.isEmpty()) {
            return;
        }
        Throwable first = failures.get(0);
        if (first instanceof OutOfBoundsAccess outside) { // the core names the buffer
            failures.stream().skip(1).forEach(outside::addSuppressed);
            throw outside;
        }
        DriverException failure =
                new DriverException("cpu stream operation", -1, "JAVA_KERNEL_EXCEPTION", first.toString());
        failure.initCause(first);
        failures.stream().skip(1).forEach(failure::addSuppressed);
        throw failure;
    }

    @Override
    public List<Throwable> drainErrors() {
        List<Throwable> failures = new ArrayList<>();
        for (Throwable failure; (failure = errors.poll()) != null; ) {
            failures.add(failure);
        }
        return failures;
    }

    @Override
    public CaptureSupport capture() {
        return this;
    }

    @Override
    public BackendGraph seal(RecordedLaunches recording) {
        List<PreparedLaunch> launches = new ArrayList<>(recording.launches().size());
        boolean meets = false;
        for (RecordedLaunch launch : recording.launches()) {
            CpuCompiler.CpuKernel kernel = (CpuCompiler.CpuKernel) launch.kernel();
            meets |= kernel.meetsOtherRanks();
            launches.add(new PreparedLaunch(kernel, launch.dims(), launch.bindings()));
        }
        return new CpuGraph(List.copyOf(launches), meets);
    }

    @Override
    public void replay(BackendGraph graph) {
        CpuGraph sealed = (CpuGraph) graph;
        List<PreparedLaunch> launches = sealed.launches();
        enqueue(() -> {
            for (PreparedLaunch launch : launches) {
                launch.run(pool);
            }
        });
        if (sealed.meetsOtherRanks()) {
            submitOpenBatch(); // other ranks wait for this one's part
        }
    }

    /**
     * Stops the worker after the work already queued. The wait is bounded (30 s) but not cut short by an
     * interrupt: the core frees this stream's memory right after, so the worker must be gone first. An
     * interrupt that arrives meanwhile is kept for the caller.
     */
    @Override
    public void close() {
        submitOpenBatch();
        worker.shutdown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean interrupted = false;
        while (!worker.isTerminated()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                worker.shutdownNow();
                break;
            }
            try {
                worker.awaitTermination(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
