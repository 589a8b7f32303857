package dev.graphrt.core.runtime;

import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.spi.BackendStream;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The capture calls of a stream: prepare, the warm-up passes, begin, end and cancel, and the high-level
 * {@code capture(options, step)} that runs them and cancels on any failure. The lifecycle moves the state; this part
 * adds what the stream owns around each transition: the pooled window, the streams that joined the warm-up or the
 * capture, and checked mode's guards. Whatever happens, once a window ends the streams that joined it leave and the
 * runtime hears that a capture ended (after this stream's lock, since that may close deferred streams).
 */
final class CaptureCalls {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CaptureCalls.class);

    private final StreamPeer self;
    private final long id;
    private final CoreGraph.Owner owner;
    private final StreamHost host;
    private final OperationPolicy policy;
    private final BackendStream backend;
    private final StreamGuard guard;
    private final Membership membership;
    private final PooledWindow window;
    private final StreamMemory memory;
    private final CaptureLifecycle lifecycle;
    private final CheckedWork checked;
    private final ReplayBlame blame;

    CaptureCalls(StreamPeer self, CoreGraph.Owner owner, StreamHost host, StreamGuard guard, Membership membership,
                 PooledWindow window, CheckedWork checked, ReplayBlame blame) {
        this.self = self;
        this.id = self.id();
        this.owner = owner;
        this.host = host;
        this.policy = host.policy();
        this.backend = self.backendStream();
        this.guard = guard;
        this.membership = membership;
        this.window = window;
        this.memory = self.memory();
        this.lifecycle = self.lifecycle();
        this.checked = checked;
        this.blame = blame;
    }

    /** prepare(), the warm-ups, beginCapture(), the step, then {@code end}; any failure cancels the capture. */
    <T> T run(GpuStream stream, CaptureOptions options, Consumer<GpuStream> step, Supplier<T> end) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(step, "step");
        prepare(options);
        try {
            for (int pass = 0; pass < options.warmups(); pass++) {
                step.accept(stream);
                endWarmupPass();
            }
            beginCapture(options);
            step.accept(stream);
            return end.get();
        } catch (RuntimeException | Error failure) {
            if (policy.windowOpen(lifecycle.current())) {
                try {
                    cancelCapture();
                } catch (RuntimeException | Error later) {
                    failure.addSuppressed(later);
                }
            }
            throw failure;
        }
    }

    /**
     * NO_CAPTURE to PREPARE. Replays still unsynchronised are waited for first (a bounded fence wait, not a full
     * synchronize), so that a replay failing during the warm-up is reported as the replay's failure naming its
     * graph, not as the warm-up step's.
     */
    void prepare(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        transition("prepare", () -> {
            CorePool pool = host.checkPool(options.pool());
            if (blame.pending() && policy.waitsForReplaysAtPrepare(lifecycle.current())
                    && !host.anotherCaptureForbidsDeviceCalls(id)) {
                blame.hostSync(() -> {
                    memory.awaitAll("the replays before prepare()");
                    List<Throwable> failed = backend.drainErrors();
                    if (!failed.isEmpty()) {
                        RuntimeException first = failed.get(0) instanceof RuntimeException raw ? raw
                                : new DriverException("stream #" + id + " replay", failed.get(0));
                        failed.stream().skip(1).forEach(first::addSuppressed);
                        throw first;
                    }
                });
            }
            lifecycle.prepare();
            if (pool != null) {
                try {
                    pool.bind(id);
                } catch (RuntimeException refused) {
                    lifecycle.cancelCapture();
                    throw refused;
                }
            }
            window.open(pool);
        });
    }

    void endWarmupPass() {
        settleWarmupMembers();
        transition("endWarmupPass", () -> {
            checkWarmupGuards();
            lifecycle.endWarmupPass();
            window.endPass();
        });
    }

    void beginCapture(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        boolean warmingUp = policy.joinsWarmup(lifecycle.current());
        if (warmingUp) {
            settleWarmupMembers();
        }
        transition("beginCapture", () -> {
            if (policy.joinsWarmup(lifecycle.current())) {
                window.checkSamePool(options.pool());
                checkWarmupGuards();
            }
            window.endPass();
            membership.endWarmup();
            lifecycle.beginCapture(options);
        });
    }

    Graph endCapture() {
        return ending("endCapture on stream #" + id, () -> {
            guard.checkOpen("endCapture");
            membership.refuseIfMember("endCapture");
            membership.checkJoinedBack("endCapture");
            window.refuseOpenViews("endCapture");
            SealedWindow sealed = lifecycle.endCapture();
            if (sealed.nodeLabels().size() == 0) {
                LOG.warn("stream #{}: the captured graph is empty (nothing was recorded between beginCapture and "
                        + "endCapture); its replay does nothing", id);
            }
            window.registerIntermediates();
            CoreGraph graph = new CoreGraph(owner, host.scope(), sealed, policy.graphKind());
            memory.adopt(graph);
            host.graphSealed(graph);
            host.observers().captured(id, graph.id(), sealed.nodeLabels().size(), sealed.captureDuration());
            return graph;
        });
    }

    void cancelCapture() {
        transition("cancelCapture", () -> {
            membership.joinBackForAbort();
            lifecycle.cancelCapture();
        });
    }

    /**
     * Ends this stream's capture with {@code end} under its lock; whatever happens, once it no longer records, the
     * streams that joined it leave and the runtime hears that a capture ended.
     */
    <T> T ending(String operation, Supplier<T> end) {
        guard.lock().lock();
        try {
            return end.get();
        } catch (RuntimeException failure) {
            throw host.failed(operation, failure);
        } finally {
            boolean ended = !lifecycle.isRecording();
            if (ended) {
                membership.dissolveGroup();
            }
            windowEnded();
            guard.lock().unlock();
            if (ended) {
                host.captureEnded();
            }
        }
    }

    /** A lifecycle call of the stream's own (not of a member): under its lock, with the window's ends after it. */
    private void transition(String operation, Runnable action) {
        guard.lock().lock();
        // Read under the lock: read before it, a cancel from another thread (RELAXED) racing a beginCapture would see
        // PREPARE, end the capture that began meanwhile, and leave the streams that joined it in a dissolved group.
        boolean wasRecording = lifecycle.isRecording();
        try {
            guard.checkOpen(operation);
            membership.refuseIfMember(operation);
            action.run();
        } catch (RuntimeException failure) {
            throw host.failed(operation + " on stream #" + id, failure);
        } finally {
            boolean ended = wasRecording && !lifecycle.isRecording();
            if (ended) {
                membership.dissolveGroup();
            }
            windowEnded();
            guard.lock().unlock();
            if (ended) {
                host.captureEnded();
            }
        }
    }

    /** When the stream is back in NO_CAPTURE: the pooled window and the warm-up's members end with the window. */
    void windowEnded() {
        CaptureState state = lifecycle.current();
        window.endIfClosed(state);
        if (!policy.windowOpen(state)) {
            membership.endWarmup();
        }
    }

    // ---- the warm-up's members and guards ---------------------------------------------------------------

    /**
     * Before a pass of this stream's warm-up ends (or the capture begins): every stream that joined the warm-up
     * settles (its work waited for, its guards read). Called without this stream's lock (a member's comes first).
     */
    private void settleWarmupMembers() {
        for (StreamPeer member : membership.warmupMembers()) {
            member.settleForWarmup(self);
        }
    }

    /** This stream took part in {@code warmup}'s warm-up, whose pass ends: its work so far is waited for. */
    void settleForWarmup(StreamPeer warmup) {
        guard.lock().lock();
        try {
            if (guard.closed() || membership.warmupOrigin() != warmup || host.anotherCaptureForbidsDeviceCalls(id)) {
                return;
            }
            memory.awaitAll("its part of stream #" + warmup.id() + "'s warm-up pass");
            Optional<BufferOverrunException> overrun = checked.check(backend);
            memory.afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        } finally {
            guard.lock().unlock();
        }
    }

    /**
     * Checked mode, where a warm-up pass ends: waits for this stream's work and reads the guards of what it touched,
     * which also lets go of the buffers checked mode held for that, so the next pass or the recording finds their
     * slices free. An overrun in the warm-up is the step's own failure.
     */
    private void checkWarmupGuards() {
        if (!checked.on() || host.anotherCaptureForbidsDeviceCalls(id)) {
            return;
        }
        memory.awaitAll("the warm-up pass's work before its guards are read");
        Optional<BufferOverrunException> overrun = checked.check(backend);
        overrun.ifPresent(failure -> {
            throw failure;
        });
    }
}
