package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphDiagnosis;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Fence;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The core's stream: a façade over parts with one job each, which it only wires and delegates to (OkHttp's shape).
 * {@link StreamGuard} runs every call's lock/check/fail skeleton; {@link StreamWork} allocates, writes, reads,
 * launches and replays; {@link StreamCopies} copies; {@link StreamEvents} records and waits for events;
 * {@link CaptureCalls} drives prepare, warm-ups, begin, end and cancel; {@link GraphEdits} updates, rebinds and
 * diagnoses graphs; {@link StreamClosing} closes and releases. What the stream's work keeps alive is
 * {@link StreamMemory}'s job, which capture and warm-up the stream takes part in is {@link Membership}'s, and the
 * pooled window is {@link PooledWindow}'s. Every decision per capture state is {@link OperationPolicy}'s. The
 * stream knows its runtime only as a {@link StreamHost}.
 */
final class CoreStream implements GpuStream, CoreGraph.Owner, StreamPeer {
    private final long id;
    private final StreamHost host;
    private final BackendStream backend;
    private final StreamMemory memory;
    private final CaptureLifecycle lifecycle;
    private final Membership membership;
    private final StreamGuard guard;
    private final StreamWork work;
    private final StreamCopies copies;
    private final StreamCollectives collectives;
    private final StreamEvents events;
    private final CaptureCalls capture;
    private final GraphEdits edits;
    private final StreamClosing closing;

    CoreStream(StreamHost host, long id, BackendStream backend) {
        this.id = id;
        this.host = host;
        this.backend = backend;
        OperationPolicy policy = host.policy();
        this.memory = new StreamMemory(
                id,
                host,
                backend,
                (metadata, drops) -> new CaptureLifecycle(
                        id,
                        backend,
                        policy,
                        host.memory(),
                        metadata,
                        drops,
                        host::nextGraphId,
                        host::nextStamp,
                        host.options().waitTimeout()),
                this::joinedAnotherCapture);
        this.lifecycle = memory.lifecycle();
        this.membership = new Membership(this, policy);
        this.guard = new StreamGuard(id, host, membership);
        CheckedWork checked = new CheckedWork(host.guards());
        ReplayBlame blame = new ReplayBlame(id, checked);
        PooledWindow window = new PooledWindow(id, host, memory);
        StreamContext parts = new StreamContext(this, host, guard, membership, window, checked, blame);
        this.work = new StreamWork(parts);
        this.copies = new StreamCopies(parts, work);
        this.collectives = new StreamCollectives(parts);
        this.events = new StreamEvents(parts);
        this.capture = new CaptureCalls(parts, this);
        this.edits = new GraphEdits(parts, capture);
        this.closing = new StreamClosing(parts, capture);
    }

    @Override
    public long id() {
        return id;
    }

    // ---- memory and work ---------------------------------------------------------------------------

    @Override
    public Buffer allocate(long bytes) {
        return work.allocate(bytes);
    }

    @Override
    public Buffer upload(float[] data) {
        Objects.requireNonNull(data, "data");
        return work.upload(MemorySegment.ofArray(data));
    }

    @Override
    public Buffer upload(int[] data) {
        Objects.requireNonNull(data, "data");
        return work.upload(MemorySegment.ofArray(data));
    }

    @Override
    public void write(Buffer dst, float[] data) {
        Objects.requireNonNull(data, "data");
        work.write(dst, MemorySegment.ofArray(data));
    }

    @Override
    public void write(Buffer dst, int[] data) {
        Objects.requireNonNull(data, "data");
        work.write(dst, MemorySegment.ofArray(data));
    }

    @Override
    public void write(Buffer dst, MemorySegment data) {
        work.write(dst, data);
    }

    @Override
    public float[] readFloats(Buffer src) {
        float[] out = new float[wordCount(src)];
        work.read(src, MemorySegment.ofArray(out));
        return out;
    }

    @Override
    public int[] readInts(Buffer src) {
        int[] out = new int[wordCount(src)];
        work.read(src, MemorySegment.ofArray(out));
        return out;
    }

    private int wordCount(Buffer src) {
        host.checkOpen("read");
        CoreBuffer buffer = host.checkBuffer(src, "src");
        if (buffer.byteSize() % 4 != 0 || buffer.byteSize() / 4 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("src " + buffer + " is not a whole number of 4-byte words, or too "
                    + "large for one array: read it into a MemorySegment instead");
        }
        return (int) (buffer.byteSize() / 4);
    }

    @Override
    public void read(Buffer src, MemorySegment dst) {
        work.read(src, dst);
    }

    @Override
    public void copy(Buffer src, Buffer dst) {
        copies.copy(src, dst);
    }

    /** This stream's collectives, for its communicators and for making them. */
    StreamCollectives collectives() {
        return collectives;
    }

    @Override
    public void launch(Kernel kernel, LaunchDims dims, KernelArgs args) {
        work.launch(kernel, dims, args);
    }

    @Override
    public void replay(Graph graph) {
        work.replay(graph);
    }

    @Override
    public void flush() {
        work.flush();
    }

    @Override
    public void synchronize() {
        work.synchronize();
    }

    // ---- events ------------------------------------------------------------------------------------

    @Override
    public StreamEvent record() {
        return events.record();
    }

    @Override
    public void waitFor(StreamEvent event) {
        events.waitFor(event);
    }

    @Override
    public boolean eventComplete(Fence fence) {
        return events.eventComplete(fence);
    }

    @Override
    public void awaitEvent(Fence fence) {
        events.awaitEvent(fence);
    }

    // ---- capture -----------------------------------------------------------------------------------

    @Override
    public CaptureState captureState() {
        return membership.state();
    }

    @Override
    public Graph capture(CaptureOptions options, Consumer<GpuStream> step) {
        return capture.run(this, options, step, capture::endCapture);
    }

    @Override
    public void prepare() {
        prepare(CaptureOptions.defaults());
    }

    @Override
    public void prepare(CaptureOptions options) {
        capture.prepare(options);
    }

    @Override
    public void endWarmupPass() {
        capture.endWarmupPass();
    }

    @Override
    public void beginCapture() {
        beginCapture(CaptureOptions.defaults());
    }

    @Override
    public void beginCapture(CaptureOptions options) {
        capture.beginCapture(options);
    }

    @Override
    public Graph endCapture() {
        return capture.endCapture();
    }

    @Override
    public void cancelCapture() {
        capture.cancelCapture();
    }

    @Override
    public void settleForWarmup(StreamPeer warmup) {
        capture.settleForWarmup(warmup);
    }

    // ---- graphs ------------------------------------------------------------------------------------

    @Override
    public UpdateResult update(CoreGraph graph, CaptureOptions options, Consumer<GpuStream> step) {
        return edits.update(this, graph, options, step);
    }

    @Override
    public int rebind(CoreGraph graph, Buffer from, Buffer to) {
        return edits.rebind(graph, from, to);
    }

    @Override
    public GraphDiagnosis diagnose(CoreGraph graph) {
        return edits.diagnose(graph);
    }

    @Override
    public void unused(CoreGraph graph) {
        closing.unused(graph);
    }

    // ---- closing -----------------------------------------------------------------------------------

    @Override
    public void close() {
        closing.close();
        work.forgetLastLaunch();
    }

    @Override
    public void abandonCapture(String why) {
        closing.abandonCapture(why, false);
    }

    @Override
    public void reclaim() {
        closing.reclaim();
    }

    // ---- what the runtime and the other streams see ------------------------------------------------

    @Override
    public RuntimeScope scope() {
        return host.scope();
    }

    @Override
    public boolean isClosed() {
        return guard.closed();
    }

    @Override
    public boolean closeDeferred() {
        return guard.closeDeferred();
    }

    @Override
    public ReentrantLock lock() {
        return guard.lock();
    }

    @Override
    public CaptureLifecycle lifecycle() {
        return lifecycle;
    }

    @Override
    public StreamMemory memory() {
        return memory;
    }

    @Override
    public BackendStream backendStream() {
        return backend;
    }

    @Override
    public void leaveCapture() {
        membership.leaveCapture();
    }

    @Override
    public void addWarmupMember(StreamPeer member) {
        membership.addWarmupMember(member);
    }

    @Override
    public void leaveWarmup() {
        membership.leaveWarmup();
    }

    /** Whether its driver stream is part of another stream's capture now (its releases then fence nothing). */
    private boolean joinedAnotherCapture() {
        return membership.isMember();
    }

    @Override
    public boolean forbidsDeviceCallsFrom(Thread thread) {
        return lifecycle.blocksDeviceCallsFrom(thread);
    }

    @Override
    public String toString() {
        StreamPeer origin = membership.joinedOrigin();
        return "stream #" + id + " ("
                + (origin != null ? "CAPTURE, joined to stream #" + origin.id() : lifecycle.current()) + ")";
    }
}
