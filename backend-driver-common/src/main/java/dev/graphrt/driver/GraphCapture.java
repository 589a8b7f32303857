package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.DriverException;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.UpdateRejectedException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;

/**
 * The capture hooks of one hardware stream (CUDA, HIP): opening a driver capture, sealing it into a
 * {@link DriverGraph}, aborting it, replaying and destroying the graphs, over the backend's
 * {@link StreamDriver} and its {@link GraphCalls}. {@link DriverStream} keeps the ordinary work and delegates
 * its {@code DriverCapture} steps here, after its own open check.
 *
 * <p>Why one class: the sequence is where the hardware backends can go wrong, and it must be the same for
 * all of them. Closing a capture always ends the driver capture (a failure never leaves the stream
 * capturing), refuses graphs with memory nodes, instantiates and uploads; the graph keeps the template (its
 * nodes name the executable graph's for a rebind, and its DOT dump is made only when asked for), which is
 * destroyed on every path where no graph comes out, as are the capture's graph-owned host copies. Closing
 * into a live graph ({@link #closeInto}) applies the capture with {@code GraphExecUpdate} instead of
 * instantiating; a rebind ({@link #rebind}) sets kernel nodes' arguments in place. Aborting ends a
 * capture that is open and destroys whatever comes back. Host memory and graphs are freed through
 * {@link CaptureAwareReleases}, never while another capture of the backend runs.
 *
 * <p>While a capture is open, the stream stages its writes through {@link #stage}: the copies become the
 * graph's ({@link CapturedHostCopies}). Before it, {@link #noteWarmupWrite} counts what the warm-up wrote, so
 * the capture can reserve that much pinned memory before it begins. Not thread-safe: the core serialises
 * calls per stream.
 */
public final class GraphCapture {
    /**
     * Most pinned bytes reserved before a capture from what the warm-up wrote; writes beyond it are staged
     * into blocks allocated during the capture (under a RELAXED capture-mode exchange). Caps the cost of
     * large writes made in PREPARE outside the captured step.
     */
    public static final long MAX_WRITE_RESERVATION = 16L << 20;

    private final StreamDriver driver;
    private final DriverNames names;
    private final GraphCalls graphs;
    private final MemorySegment stream;
    private final CaptureAwareReleases releases;
    private final PinnedHostMemory pinned;
    private final Logger log;
    private final String name;
    private final String graphKind;

    private boolean preparing;
    private long warmupWriteBytes;
    private CapturedHostCopies capture;
    private CaptureMode captureMode;
    /** Nodes this capture recorded through the stream (launches, staged writes), for {@link #checkNodes}. */
    private int recordedNodes;

    /**
     * The capture hooks of the stream that {@code driver} is bound to.
     *
     * @param driver   the backend's stream calls
     * @param stream   the stream's handle
     * @param releases the backend's deferred releases
     * @param pinned   the backend's pinned host memory, for the graph-owned write copies
     * @param log      the stream's logger (messages keep the stream's category)
     * @param streamId the stream's id, for messages ({@code cuda stream 3})
     */
    public GraphCapture(
            StreamDriver driver,
            MemorySegment stream,
            CaptureAwareReleases releases,
            PinnedHostMemory pinned,
            Logger log,
            long streamId) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.stream = Objects.requireNonNull(stream, "stream");
        this.names = driver.names();
        this.graphs = driver.graphs();
        this.releases = Objects.requireNonNull(releases, "releases");
        this.pinned = Objects.requireNonNull(pinned, "pinned");
        this.log = Objects.requireNonNull(log, "log");
        this.name = names.backend() + " stream " + streamId;
        this.graphKind = names.title() + "Graph";
    }

    // ---- around the capture ----------------------------------------------------------------------------

    /** The warm-up (PREPARE) begins: writes from now on are counted for the reservation. */
    public void onPrepare() {
        preparing = true;
        warmupWriteBytes = 0;
    }

    /** Whether a capture is open: the stream's writes must then go through {@link #stage}. */
    public boolean isCapturing() {
        return capture != null;
    }

    /** Copies {@code src} into the open capture's graph-owned pinned memory and returns that copy. */
    public MemorySegment stage(MemorySegment src) {
        MemorySegment staged = capture.stage(src);
        recordedNodes++; // the write's memcpy node
        return staged;
    }

    /** A launch was enqueued: while capturing it is one kernel node of the graph. */
    public void noteLaunch() {
        if (capture != null) {
            recordedNodes++;
        }
    }

    /** A write of {@code bytes} outside a capture: counted when it belongs to the warm-up. */
    public void noteWarmupWrite(long bytes) {
        if (preparing) {
            warmupWriteBytes += (bytes + CapturedHostCopies.ALIGNMENT - 1) & -CapturedHostCopies.ALIGNMENT;
        }
    }

    // ---- capture hooks ---------------------------------------------------------------------------------

    /** Begins a driver capture in {@code mode}; the stream has checked it is open. */
    public void open(CaptureMode mode) {
        Objects.requireNonNull(mode, "mode");
        if (capture != null) {
            // The core's state machine never opens a second capture: this is an internal invariant, not the
            // user's ordering error (which the core reports as GraphStateException before calling here).
            throw new IllegalStateException("open: " + name + " is already capturing; end or cancel "
                    + "that capture before beginning another");
        }
        driver.makeCurrent();
        CapturedHostCopies copies = new CapturedHostCopies(pinned);
        // before the capture begins, so the usual case allocates no host memory inside it
        copies.reserve(preparing ? Math.min(warmupWriteBytes, MAX_WRITE_RESERVATION) : 0);
        preparing = false;
        warmupWriteBytes = 0;
        releases.captureStarting();
        try {
            graphs.beginCapture(stream, DriverCaptureModes.code(mode));
        } catch (RuntimeException e) {
            releases.captureEnded();
            releaseHostCopies(copies, e);
            throw e;
        }
        capture = copies;
        captureMode = mode;
        recordedNodes = 0;
        if (log.isDebugEnabled()) {
            OptionalLong id = graphs.captureId(stream);
            if (id.isPresent()) {
                log.debug(
                        "{}: capture begun ({} mode, driver capture id {}, {} bytes reserved for writes)",
                        name,
                        mode,
                        id.getAsLong(),
                        copies.heldBytes());
            } else {
                log.debug("{}: capture begun ({} mode, {} bytes reserved for writes)", name, mode, copies.heldBytes());
            }
        }
    }

    /** Ends the driver capture and seals it into a {@link DriverGraph}; see the class comment for the order. */
    public BackendGraph close() {
        CapturedHostCopies copies = capture;
        capture = null;
        RuntimeException failure = null;
        MemorySegment template = MemorySegment.NULL;
        DriverGraph sealed = null;
        try {
            template = endDriverCapture(); // always: a failure below never leaves it capturing
            sealed = seal(template, copies);
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            finishCapture(copies, sealed == null ? template : MemorySegment.NULL, failure);
        }
        if (failure != null) {
            log.debug("{}: capture ended without a graph: {}", name, failure.getMessage());
            throw failure;
        }
        log.debug(
                "{}: capture sealed ({} mode): {} nodes, {} pinned bytes for recorded writes",
                name,
                captureMode,
                sealed.nodeCount(),
                sumBytes(sealed.hostCopies()));
        return sealed;
    }

    /**
     * Ends the driver capture and applies it to {@code target} in place ({@code GraphExecUpdate}) instead of
     * instantiating: the graph returned takes over {@code target}'s executable graph, and {@code target} becomes a
     * shell of what its own recording owned. When the driver refuses, the template and the capture's host copies
     * are freed and {@link UpdateRejectedException} names the first launch the driver named; {@code target} is
     * unchanged. The driver capture is ended on every path.
     */
    public BackendGraph closeInto(BackendGraph target) {
        CapturedHostCopies copies = capture;
        capture = null;
        RuntimeException failure = null;
        MemorySegment template = MemorySegment.NULL;
        DriverGraph next = null;
        try {
            template = endDriverCapture();
            DriverGraph old = own(target);
            if (old.isHandedOn() || old.isDestroyed()) {
                throw new IllegalStateException("graph " + old + " can no longer be updated");
            }
            checkNodes(template);
            Optional<GraphCalls.UpdateRefusal> refusal = graphs.execUpdate(old.exec(), template);
            if (refusal.isPresent()) {
                int launch = launchIndex(template, refusal.get().errorNode());
                throw new UpdateRejectedException(
                        launch,
                        names.callPrefix() + "GraphExecUpdate refused the update: "
                                + refusal.get().resultName() + (launch >= 0 ? " at launch " + launch : ""));
            }
            next = old.succeededBy(template, copies == null ? List.of() : copies.transfer());
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            finishCapture(copies, next == null ? template : MemorySegment.NULL, failure);
        }
        if (failure != null) {
            log.debug("{}: update not applied: {}", name, failure.getMessage());
            throw failure;
        }
        log.debug("{}: capture applied to {} in place", name, next);
        return next;
    }

    /**
     * Points the kernel nodes of {@code graph} at {@code changed} to {@code after}'s arguments
     * ({@code GraphExecKernelNodeSetParams}; later launches only), packing each through {@code parameters}. On a
     * failure the nodes already patched get {@code before}'s arguments back, then the failure is thrown.
     */
    public BackendGraph rebind(
            BackendGraph graph,
            RecordedLaunches before,
            RecordedLaunches after,
            int[] changed,
            KernelParameterBlock parameters) {
        DriverGraph own = own(graph);
        if (own.isHandedOn() || own.isDestroyed()) {
            throw new IllegalStateException("graph " + own + " can no longer be rebound");
        }
        driver.makeCurrent();
        MemorySegment[] kernels = own.kernelNodes(() -> kernelNodes(own.template()));
        if (kernels.length != after.launches().size()) {
            throw new IllegalStateException(name + ": " + own + " has " + kernels.length + " kernel nodes for "
                    + after.launches().size() + " recorded launches, so a rebind cannot tell which node is which");
        }
        own.markRebound();
        int done = 0;
        try {
            for (int index : changed) {
                setKernelNode(own, kernels[index], after.launches().get(index), parameters);
                done++;
            }
        } catch (RuntimeException failure) {
            for (int i = 0; i < done; i++) {
                try {
                    setKernelNode(own, kernels[changed[i]], before.launches().get(changed[i]), parameters);
                } catch (RuntimeException again) {
                    failure.addSuppressed(again);
                }
            }
            throw failure;
        }
        return own;
    }

    /**
     * Abandons the capture: ends a driver capture that is open (unless the stream is already closed) and
     * destroys what it returns, then frees the capture's host copies.
     */
    public void abort(boolean streamClosed) {
        CapturedHostCopies copies = capture;
        capture = null;
        preparing = false;
        warmupWriteBytes = 0;
        RuntimeException failure = null;
        try {
            if (!streamClosed) {
                driver.makeCurrent();
                if (graphs.isCapturing(stream)) {
                    endAndDiscard();
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            if (copies != null) {
                releases.captureEnded();
                releaseHostCopies(copies, failure);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Launches {@code graph}, which this stream captured; the stream has checked it is open. While this stream
     * captures, the driver cannot launch a graph into the capture, so the graph's recording becomes a child-graph
     * node of the capture instead (the driver clones it), after the capture's current dependencies.
     */
    public void replay(BackendGraph graph) {
        DriverGraph own = own(graph);
        if (own.isDestroyed()) {
            throw new IllegalStateException("graph " + own + " was destroyed");
        }
        driver.makeCurrent();
        if (capture != null) {
            if (own.isRebound()) { // its template still has the arguments from before the rebind
                throw new IllegalStateException("graph " + own + " was rebound, so its recording is not the one it "
                        + "runs; update it (re-record) before replaying it inside a capture");
            }
            graphs.addChildToCapture(stream, own.latest());
            recordedNodes++;
            return;
        }
        graphs.launchGraph(own.exec(), stream);
    }

    /**
     * Destroys {@code graph} and frees its host copies, once and never during a capture of the backend. A shell an
     * update left ({@link DriverGraph#isHandedOn()}) frees only what its own recording owned.
     */
    public void destroy(BackendGraph graph) {
        DriverGraph own = own(graph);
        if (!own.markDestroyed()) {
            return;
        }
        releases.release(() -> {
            driver.makeCurrent();
            List<Runnable> steps = new ArrayList<>();
            synchronized (own) { // not while its DOT is printed
                boolean handedOn = own.isHandedOn();
                if (!handedOn) {
                    steps.add(() -> graphs.destroyExec(own.exec()));
                    steps.add(() -> graphs.destroyTemplate(own.template()));
                }
                if (!own.latest().equals(own.template())) {
                    steps.add(() -> graphs.destroyTemplate(own.latest()));
                }
                steps.add(() -> CapturedHostCopies.freeAll(pinned, own.hostCopies()));
                Failures.runAll(steps);
            }
        });
    }

    // ---- internals -------------------------------------------------------------------------------------

    /** Validates, instantiates and uploads the captured template, which the graph keeps (nodes, DOT on request). */
    private DriverGraph seal(MemorySegment template, CapturedHostCopies copies) {
        int nodes = checkNodes(template);
        MemorySegment exec = graphs.instantiate(template);
        try {
            graphs.upload(exec, stream);
        } catch (RuntimeException e) {
            try {
                graphs.destroyExec(exec);
            } catch (RuntimeException destroy) {
                e.addSuppressed(destroy);
            }
            throw e;
        }
        return new DriverGraph(
                this, graphKind, exec, template, template, nodes, copies == null ? List.of() : copies.transfer(), null);
    }

    /**
     * Refuses a template holding nodes that forbid a relaunch (memory allocation or free nodes) and returns its node
     * count. When the template has exactly the nodes this capture recorded through the stream (its launches and
     * writes), it can hold no other kind, so the per-node type scan (one driver call per node) is skipped.
     */
    private int checkNodes(MemorySegment template) {
        int count = graphs.nodeCount(template);
        if (count == recordedNodes) {
            return count;
        }
        log.debug(
                "{}: the captured graph has {} nodes, {} recorded through the stream: checking their types",
                name,
                count,
                recordedNodes);
        int[] types = graphs.nodeTypes(template);
        graphs.checkRelaunchable(types);
        return types.length;
    }

    /** Ends the driver capture and returns its template; one that came back with a failure is destroyed first. */
    private MemorySegment endDriverCapture() {
        String endCapture = names.callPrefix() + "StreamEndCapture";
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            driver.makeCurrent();
            int rc = graphs.tryEndCapture(stream, graphOut);
            MemorySegment template = graphOut.get(ADDRESS, 0);
            if (rc != HardwareGraphErrors.SUCCESS) {
                RuntimeException failure = names.errors().toException(endCapture, rc);
                if (!template.equals(MemorySegment.NULL)) {
                    try {
                        graphs.destroyTemplate(template);
                    } catch (RuntimeException e) {
                        failure.addSuppressed(e);
                    }
                }
                throw failure;
            }
            if (template.equals(MemorySegment.NULL)) {
                throw new DriverException(endCapture, rc, names.errors().name(rc), "no graph returned");
            }
            return template;
        }
    }

    /**
     * After a capture ended: destroys {@code unusedTemplate} (NULL when a graph owns it), tells the releases the
     * capture ended, and frees the capture's host copies when no graph took them ({@code failure} set).
     */
    private void finishCapture(CapturedHostCopies copies, MemorySegment unusedTemplate, RuntimeException failure) {
        if (!unusedTemplate.equals(MemorySegment.NULL)) {
            try {
                graphs.destroyTemplate(unusedTemplate);
            } catch (RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    log.warn("{}: {}GraphDestroy of the capture template failed", name, names.callPrefix(), e);
                }
            }
        }
        if (copies != null) {
            releases.captureEnded();
        }
        if (failure != null && copies != null) {
            releaseHostCopies(copies, failure);
        }
    }

    /** The kernel nodes of {@code template} in the driver's order, which for a captured stream is launch order. */
    private MemorySegment[] kernelNodes(MemorySegment template) {
        DriverCalls.GraphNodes all = graphs.nodes(template);
        List<MemorySegment> kernels = new ArrayList<>();
        int kernel = graphs.kernelNodeType();
        for (int i = 0; i < all.nodes().length; i++) {
            if (all.types()[i] == kernel) {
                kernels.add(all.nodes()[i]);
            }
        }
        return kernels.toArray(MemorySegment[]::new);
    }

    /** The position of {@code node} among the kernel nodes of {@code template}, or -1. */
    private int launchIndex(MemorySegment template, MemorySegment node) {
        if (node.equals(MemorySegment.NULL)) {
            return -1;
        }
        MemorySegment[] kernels = kernelNodes(template);
        for (int i = 0; i < kernels.length; i++) {
            if (kernels[i].equals(node)) {
                return i;
            }
        }
        return -1;
    }

    private void setKernelNode(
            DriverGraph graph, MemorySegment node, RecordedLaunch launch, KernelParameterBlock parameters) {
        if (!(launch.kernel() instanceof DriverKernel kernel)) {
            throw new IllegalArgumentException("launch of " + launch.kernel() + " was not compiled by " + name);
        }
        graphs.setKernelNode(graph.exec(), node, kernel.function(), launch.dims(), parameters.pack(launch.bindings()));
    }

    /** Whether the driver can dump a graph as DOT. */
    boolean printsDot() {
        return graphs.printsDot();
    }

    /** The driver's DOT dump of {@code template}, or null (logged) when it cannot be made. */
    String dot(MemorySegment template) {
        Path file = null;
        try {
            driver.makeCurrent();
            file = Files.createTempFile("graphrt-" + names.backend() + "-", ".dot");
            graphs.printDot(template, file.toString());
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            log.warn("{}: {}GraphDebugDotPrint failed; the graph has no driver DOT", name, names.callPrefix(), e);
            return null;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    log.debug("{}: could not delete {}", name, file, e);
                }
            }
        }
    }

    /** Ends a driver capture that is open (or invalidated) and destroys whatever graph it returns. */
    private void endAndDiscard() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment graphOut = local.allocate(ADDRESS);
            graphOut.set(ADDRESS, 0, MemorySegment.NULL);
            int rc = graphs.tryEndCapture(stream, graphOut);
            MemorySegment graph = graphOut.get(ADDRESS, 0);
            log.debug(
                    "{}: capture aborted ({}StreamEndCapture {} {})",
                    name,
                    names.callPrefix(),
                    rc,
                    names.errors().name(rc));
            if (!graph.equals(MemorySegment.NULL)) {
                graphs.destroyTemplate(graph);
            }
        }
    }

    /** Frees a capture's host copies once no capture of the backend runs; failures join {@code primary}. */
    private void releaseHostCopies(CapturedHostCopies copies, RuntimeException primary) {
        try {
            releases.release(copies::free);
        } catch (RuntimeException e) {
            if (primary != null) {
                primary.addSuppressed(e);
            } else {
                log.warn("{}: freeing a capture's pinned write copies failed", name, e);
            }
        }
    }

    private DriverGraph own(BackendGraph graph) {
        Objects.requireNonNull(graph, "graph");
        if (!(graph instanceof DriverGraph own) || own.owner() != this) {
            throw new IllegalArgumentException("graph " + graph + " was not captured on " + name);
        }
        return own;
    }

    private static long sumBytes(List<MemorySegment> blocks) {
        long sum = 0;
        for (MemorySegment block : blocks) {
            sum += block.byteSize();
        }
        return sum;
    }
}
