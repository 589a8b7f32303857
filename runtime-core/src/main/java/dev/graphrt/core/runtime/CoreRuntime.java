package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.Collectives;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.DeviceOutOfMemoryException;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.RuntimeObserver;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.lifecycle.GraphKinds;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.memory.PoolConfig;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One opened backend with the core's policy around it: the memory manager, the operation table, the kernel
 * cache and the streams. Closing closes every stream (and so every graph) and frees every pooled byte.
 */
public final class CoreRuntime implements GraphRuntime, StreamHost {
    private static final Logger LOG = LoggerFactory.getLogger(CoreRuntime.class);
    /** Larger requests are refused outright: no device has this much, and the number is surely a bug. */
    private static final long ABSURD_BYTES = 1L << 44;

    private final Backend backend;
    private final RuntimeOptions options;
    private final MemoryManager memory;
    private final Observers observers = new Observers();
    private final OperationPolicy policy;
    private final Set<Capability> capabilities;
    private final ConcurrentHashMap<KernelSource, CoreKernel> kernels = new ConcurrentHashMap<>();
    private final Set<CoreStream> streams = ConcurrentHashMap.newKeySet();
    private final AtomicLong streamIds = new AtomicLong();
    private final AtomicLong graphIds = new AtomicLong();
    private final AtomicLong bufferIds = new AtomicLong();
    private final AtomicLong poolIds = new AtomicLong();
    /** Pools that may still hold shared memory, for {@link #memoryStats()}. */
    private final Map<Long, CorePool> pools = new ConcurrentHashMap<>();
    /** Epoch and recording stamps: unique across the runtime, and never equal to a buffer's initial stamp 0. */
    private final AtomicLong stamps = new AtomicLong();

    private final RuntimeScope scope;
    private final Set<CoreGraph> liveGraphs = ConcurrentHashMap.newKeySet();
    /** Streams closed while another capture forbade device calls: their close completes when it ends. */
    private final Map<Long, Runnable> deferredCloses = new ConcurrentHashMap<>();
    /** Checked mode's guards, or null when it is off. */
    private final @Nullable Guards guards;
    /** Whether the device was lost: once it was, every call fails fast (DESIGN.md section 9). */
    private final DeviceLoss loss;
    /**
     * Set first thing by close(): a second close() (another thread, or a Java kernel the first one waits for)
     * returns at once, and a stream opened after close() saw the streams to close is refused and closed.
     */
    private final AtomicBoolean closing = new AtomicBoolean();

    private final Communicators communicators = new Communicators();
    private final @Nullable CoreCollectives collectives;

    public CoreRuntime(Backend backend, RuntimeOptions options) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.options = Objects.requireNonNull(options, "options");
        Set<Capability> declared = backend.capabilities();
        this.capabilities = declared.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(declared));
        this.loss = new DeviceLoss(backend.name());
        this.policy = new OperationPolicy(backend.name(), capabilities, GraphKinds.of(backend));
        policy.checkDeclared(backend.collectives().isPresent());
        long alignment = backend.memory().alignment();
        this.memory = new MemoryManager(
                backend.name(),
                backend.memory(),
                new PoolConfig(
                        options.pageBytes(),
                        options.maxPooledBytes(),
                        alignment,
                        options.poolReserveBytes(),
                        policy.freesDuringCapture()),
                observers::poolGrew);
        this.guards = options.checked() ? new Guards(backend.memory(), alignment) : null;
        this.scope = new RuntimeScope(
                memory,
                backend.name(),
                backend.name() + ":" + options.deviceIndex() + " "
                        + backend.device().name());
        this.collectives = backend.collectives()
                .map(offered -> new CoreCollectives(backend.name(), offered, scope, options.waitTimeout()))
                .orElse(null);
        LOG.debug("runtime opened on {} with {}", backend.device(), capabilities);
    }

    @Override
    public String backendName() {
        return backend.name();
    }

    @Override
    public DeviceInfo device() {
        return backend.device();
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public GraphKind graphKind() {
        return policy.graphKind();
    }

    @Override
    public GpuStream openStream() {
        checkOpen("openStream");
        if (closing.get()) {
            throw new IllegalStateException("openStream: the " + backend.name() + " runtime is closing");
        }
        BackendStream opened = backend.openStream();
        CoreStream stream;
        try {
            stream = new CoreStream(this, streamIds.incrementAndGet(), opened);
        } catch (RuntimeException | Error failure) {
            try {
                opened.close(); // refused (a stream offering another graph kind): the core never used it
            } catch (RuntimeException later) {
                failure.addSuppressed(later);
            }
            throw failure;
        }
        streams.add(stream);
        if (closing.get()) {
            // close() may have taken its list of streams before this one joined it: never hand it out.
            try {
                stream.close();
            } catch (RuntimeException failure) {
                LOG.warn(
                        "stream #{} opened while the runtime closed: its close failed: {}",
                        stream.id(),
                        failure.toString());
            }
            throw new IllegalStateException("openStream: the " + backend.name() + " runtime is closing");
        }
        return stream;
    }

    @Override
    public Kernel compile(KernelSource source) {
        Objects.requireNonNull(source, "source");
        checkOpen("compile");
        return kernels.computeIfAbsent(source, this::compileNow);
    }

    private CoreKernel compileNow(KernelSource source) {
        Set<Dialect> offered = EnumSet.noneOf(Dialect.class);
        for (Dialect dialect : Dialect.values()) {
            if (source.has(dialect)) {
                offered.add(dialect);
            }
        }
        List<Dialect> accepted = backend.compiler().dialects();
        if (accepted.stream().noneMatch(offered::contains)) {
            throw new KernelCompilationException(
                    "kernel '" + source.entryPoint() + "' offers " + offered + " but the " + backend.name()
                            + " backend compiles only " + accepted,
                    "");
        }
        return new CoreKernel(scope, backend.compiler().compile(source), Set.copyOf(offered));
    }

    /** Pool accounting plus the bytes of the distinct buffers live graphs retain. */
    @Override
    public MemoryStats memoryStats() {
        Map<Retainable, Boolean> retained = new IdentityHashMap<>();
        for (CoreGraph graph : liveGraphs) {
            for (Retainable buffer : graph.retained()) {
                retained.put(buffer, Boolean.TRUE);
            }
        }
        MemoryStats stats = memory.stats(
                retained.keySet().stream().mapToLong(Retainable::retainedBytes).sum());
        // An updated graph's pins are held under its window's id: report them under the graph's own.
        Map<Long, Long> graphOfWindow = new HashMap<>();
        for (CoreGraph graph : liveGraphs) {
            graphOfWindow.put(graph.window().graphId(), graph.id());
        }
        Map<Long, Long> perGraph = new HashMap<>();
        stats.pinnedPerGraph()
                .forEach((window, bytes) ->
                        perGraph.merge(graphOfWindow.getOrDefault(window, window), bytes, Long::sum));
        Map<Long, Long> perPool = new HashMap<>();
        pools.values().removeIf(pool -> !pool.inUse());
        for (CorePool pool : pools.values()) {
            perPool.put(pool.id(), pool.sharedBytes());
        }
        return new MemoryStats(
                stats.reservedBytes(),
                stats.inUseBytes(),
                stats.persistentFreeBytes(),
                stats.pinnedBytes(),
                perGraph,
                stats.retainedByGraphsBytes(),
                perPool);
    }

    @Override
    public <K> GraphCache<K> graphCache(GpuStream stream, GraphCacheOptions options) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(options, "options");
        checkOpen("graphCache");
        if (!(stream instanceof CoreStream own) || !streams.contains(own)) {
            throw new IllegalArgumentException("stream: " + stream + " belongs to another runtime, or is closed");
        }
        return new CoreGraphCache<>(own, options, options.capture().pool() == null ? graphPool() : null);
    }

    @Override
    public RuntimeObserver.Subscription observe(RuntimeObserver observer) {
        Objects.requireNonNull(observer, "observer");
        checkOpen("observe");
        return observers.add(observer);
    }

    /** Who is told what this runtime does. */
    @Override
    public Observers observers() {
        return observers;
    }

    @Override
    public GraphPool graphPool() {
        checkOpen("graphPool");
        CorePool pool = new CorePool(poolIds.incrementAndGet(), scope);
        pools.put(pool.id(), pool);
        return pool;
    }

    /** Checks that {@code pool} (null: none) is this runtime's; the stream binds it once its prepare succeeded. */
    @Override
    public @Nullable CorePool checkPool(@Nullable GraphPool pool) {
        if (pool == null) {
            return null;
        }
        if (!(pool instanceof CorePool own) || own.scope() != scope) {
            throw new IllegalArgumentException("options.pool: " + pool + " belongs to another runtime");
        }
        if (own.isClosed()) {
            throw new IllegalStateException("options.pool: " + own + " is closed");
        }
        return own;
    }

    @Override
    public Collectives collectives() {
        checkOpen("collectives");
        policy.checkCollectives("collectives()");
        return Objects.requireNonNull(collectives, "collectives"); // declared, so offered (checkDeclared)
    }

    @Override
    public Communicators communicators() {
        return communicators;
    }

    @Override
    public void trim() {
        checkOpen("trim");
        for (CoreStream stream : streams) {
            stream.reclaim();
        }
        memory.trim();
    }

    /**
     * Closes every stream (and so every graph), frees every pooled byte and closes the backend. Always
     * completes: each step runs whatever failed before it, {@code Backend.close()} included, and the first
     * failure is thrown at the end with the others suppressed. Buffers, graphs and streams closed afterwards,
     * from any thread, are quiet no-ops. Idempotent.
     */
    @Override
    public void close() {
        if (scope.isClosed() || !closing.compareAndSet(false, true)) {
            return;
        }
        List<RuntimeException> failures = new ArrayList<>();
        // Every capture ends before any stream waits or frees: on a hardware backend a fence query or a host
        // free while another stream of the context records is refused and would invalidate it.
        for (CoreStream stream : new ArrayList<>(streams)) {
            try {
                stream.abandonCapture("the runtime is closing");
            } catch (RuntimeException failure) {
                failures.add(failure);
            }
        }
        for (CoreStream stream : new ArrayList<>(streams)) {
            try {
                stream.close();
            } catch (RuntimeException failure) {
                failures.add(failure);
            }
        }
        communicators.closeAll(failures); // after the streams and graphs let go of them, before the device goes
        scope.close();
        awaitLoans();
        kernels.clear();
        liveGraphs.clear();
        observers.clear();
        try {
            memory.close();
        } catch (RuntimeException failure) {
            failures.add(failure);
        }
        try {
            backend.close();
        } catch (RuntimeException failure) {
            failures.add(failure);
        }
        LOG.debug("runtime on {} closed", backend.name());
        if (loss.isLost()) {
            // Everything the device was asked while closing a lost runtime fails the same way: say it once.
            failures.forEach(f -> LOG.warn("closing the lost {} runtime: {}", backend.name(), f.toString()));
            return;
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    boolean isClosed() {
        return scope.isClosed();
    }

    // ---- shared checks -----------------------------------------------------------------------------

    @Override
    public void checkOpen(String operation) {
        if (scope.isClosed()) {
            throw new IllegalStateException(
                    operation + ": the " + backend.name() + " runtime is closed (" + scope.device()
                            + "); its streams, buffers, kernels and graphs closed with it: open a new runtime");
        }
        loss.check(operation);
    }

    /** Whether a sticky device error lost this runtime. */
    @Override
    public boolean isLost() {
        return loss.isLost();
    }

    /**
     * What to throw for {@code failure} of {@code operation}: when a sticky device error is in it (itself, a cause
     * or a suppressed error), the runtime is lost from now on and a {@link DeviceLostException} naming the
     * operation is thrown; any other failure is returned as it is.
     */
    @Override
    public RuntimeException failed(String operation, RuntimeException failure) {
        return loss.failed(operation, failure);
    }

    /**
     * Refuses a size that cannot be meant (not positive, or beyond any device) as bad input, and one beyond this
     * device's memory as {@link DeviceOutOfMemoryException}: it is a real request the device cannot hold.
     */
    @Override
    public void checkAllocationSize(long bytes, String argument) {
        if (bytes <= 0 || bytes > ABSURD_BYTES) {
            throw new IllegalArgumentException(argument + " must be between 1 and " + ABSURD_BYTES + ", was " + bytes);
        }
        long memoryBytes = backend.device().memoryBytes();
        if (memoryBytes > 0 && bytes > memoryBytes) {
            throw new DeviceOutOfMemoryException(
                    argument + " = " + bytes + " bytes exceeds the " + backend.name() + " device's " + memoryBytes
                            + " bytes of memory",
                    bytes);
        }
    }

    @Override
    public CoreBuffer checkBuffer(Buffer buffer, String argument) {
        Objects.requireNonNull(buffer, argument);
        if (!(buffer instanceof CoreBuffer core) || core.scope() != scope) {
            throw new IllegalArgumentException(argument + ": " + buffer + " belongs to another runtime"
                    + (buffer instanceof CoreBuffer other ? " (" + other.scope().device() + ")" : "")
                    + ", not to this one (" + scope.device() + "): a buffer is used only on the device and runtime "
                    + "that allocated it; copy its contents through the host (read, then upload) to use them here");
        }
        if (core.isClosed()) {
            throw new IllegalArgumentException(argument + ": " + core + " is closed");
        }
        return core;
    }

    /**
     * Waits, bounded by the wait timeout, until no copy of another runtime uses this runtime's memory any more
     * ({@link RuntimeScope#lend()}): a copy between runtimes gives its loan back once its stream finished it.
     */
    private void awaitLoans() {
        long deadline = System.nanoTime() + options.waitTimeout().toNanos();
        while (scope.lent() > 0) {
            if (System.nanoTime() - deadline > 0) {
                LOG.error(
                        "closing the {} runtime: {} copy(ies) of other runtimes still use its memory after {}; it "
                                + "is freed anyway",
                        backend.name(),
                        scope.lent(),
                        options.waitTimeout());
                return;
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * A buffer a copy on a stream of this runtime may use: one of this runtime, or (for a copy between runtimes)
     * an open one of another runtime of the same backend.
     */
    @Override
    public CoreBuffer checkCopyBuffer(Buffer buffer, String argument) {
        Objects.requireNonNull(buffer, argument);
        if (buffer instanceof CoreBuffer core && core.scope() != scope) {
            if (!core.scope().backend().equals(scope.backend())) {
                throw new IllegalArgumentException(
                        argument + ": " + core + " belongs to a " + core.scope().backend()
                                + " runtime (" + core.scope().device() + "), and this stream's runtime is "
                                + scope.device()
                                + ": a copy between runtimes needs one backend on both sides; read and upload through the host");
            }
            if (core.isClosed()) {
                throw new IllegalArgumentException(argument + ": " + core + " is closed");
            }
            return core;
        }
        return checkBuffer(buffer, argument);
    }

    /** Whether {@code buffer} was allocated by this runtime. */
    @Override
    public boolean owns(CoreBuffer buffer) {
        return buffer.scope() == scope;
    }

    @Override
    public CoreKernel checkKernel(Kernel kernel) {
        Objects.requireNonNull(kernel, "kernel");
        if (!(kernel instanceof CoreKernel core) || core.scope() != scope) {
            throw new IllegalArgumentException("kernel: " + kernel + " was compiled by another runtime"
                    + (kernel instanceof CoreKernel other ? " (" + other.scope().device() + ")" : "")
                    + ", not by this one (" + scope.device() + "): compile the kernel source on each runtime");
        }
        return core;
    }

    @Override
    public CoreGraph checkGraph(Graph graph, String argument) {
        Objects.requireNonNull(graph, argument);
        if (!(graph instanceof CoreGraph core) || core.scope() != scope) {
            throw new IllegalArgumentException(argument + ": " + graph + " belongs to another runtime");
        }
        return core;
    }

    /**
     * Whether another stream's hardware capture forbids device calls from this thread now (see
     * {@code CaptureLifecycle.blocksDeviceCallsFrom}): a flush point then fences nothing and a stream's close
     * waits for that capture to end. Always false on software-graph backends.
     */
    @Override
    public boolean anotherCaptureForbidsDeviceCalls(long streamId) {
        if (!policy.capturesForbidDeviceCalls()) {
            return false;
        }
        Thread current = Thread.currentThread();
        for (CoreStream stream : streams) {
            if (stream.id() != streamId && stream.forbidsDeviceCallsFrom(current)) {
                return true;
            }
        }
        return false;
    }

    /** A stream's close found another capture forbidding device calls: it completes when that capture ends. */
    @Override
    public void closeLater(long streamId, Runnable close) {
        deferredCloses.put(streamId, close);
    }

    /** A capture ended somewhere: the closes that waited for it run now, where device calls are allowed again. */
    @Override
    public void captureEnded() {
        for (Long streamId : new ArrayList<>(deferredCloses.keySet())) {
            Runnable close;
            if (!anotherCaptureForbidsDeviceCalls(streamId) && (close = deferredCloses.remove(streamId)) != null) {
                try {
                    close.run();
                } catch (RuntimeException failure) {
                    LOG.warn("stream #{}: its deferred close failed: {}", streamId, failure.toString());
                }
            }
        }
    }

    @Override
    public void streamClosed(long streamId) {
        streams.removeIf(stream -> stream.id() == streamId);
    }

    @Override
    public void graphSealed(CoreGraph graph) {
        liveGraphs.add(graph);
    }

    @Override
    public void graphReleased(CoreGraph graph) {
        liveGraphs.remove(graph);
    }

    /** Checked mode's guards, or null when checked mode is off. */
    @Override
    public @Nullable Guards guards() {
        return guards;
    }

    @Override
    public long nextStamp() {
        return stamps.incrementAndGet();
    }

    /** What buffers and graphs share with this runtime, in place of a reference to it. */
    @Override
    public RuntimeScope scope() {
        return scope;
    }

    @Override
    public long nextGraphId() {
        return graphIds.incrementAndGet();
    }

    @Override
    public long nextBufferId() {
        return bufferIds.incrementAndGet();
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public MemoryManager memory() {
        return memory;
    }

    @Override
    public OperationPolicy policy() {
        return policy;
    }

    @Override
    public RuntimeOptions options() {
        return options;
    }

    @Override
    public String toString() {
        return "GraphRuntime[" + backend.device() + "]";
    }
}
