package dev.graphrt.core.runtime;

import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.core.lifecycle.SealedWindow;
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

    private final CoreGraph.Owner owner;
    private final StreamContext c;

    CaptureCalls(StreamContext c, CoreGraph.Owner owner) {
        this.c = c;
        this.owner = owner;
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
            if (c.policy().windowOpen(c.lifecycle().current())) {
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
            CorePool pool = c.host().checkPool(options.pool());
            if (c.blame().pending()
                    && c.policy().waitsForReplaysAtPrepare(c.lifecycle().current())
                    && !c.host().anotherCaptureForbidsDeviceCalls(c.id())) {
                c.blame().hostSync(() -> {
                    c.memory().awaitAll("the replays before prepare()");
                    List<Throwable> failed = c.backend().drainErrors();
                    if (!failed.isEmpty()) {
                        RuntimeException first = failed.get(0) instanceof RuntimeException raw
                                ? raw
                                : new DriverException("stream #" + c.id() + " replay", failed.get(0));
                        failed.stream().skip(1).forEach(first::addSuppressed);
                        throw first;
                    }
                });
            }
            c.lifecycle().prepare();
            if (pool != null) {
                try {
                    pool.bind(c.id());
                } catch (RuntimeException refused) {
                    c.lifecycle().cancelCapture();
                    throw refused;
                }
            }
            c.window().open(pool);
        });
    }

    void endWarmupPass() {
        settleWarmupMembers();
        transition("endWarmupPass", () -> {
            checkWarmupGuards();
            c.lifecycle().endWarmupPass();
            c.window().endPass();
        });
    }

    void beginCapture(CaptureOptions options) {
        Objects.requireNonNull(options, "options");
        if (c.policy().warmingUp(c.lifecycle().current())) {
            settleWarmupMembers();
        }
        transition("beginCapture", () -> {
            if (c.policy().warmingUp(c.lifecycle().current())) {
                c.window().checkSamePool(options.pool());
                checkWarmupGuards();
            }
            c.window().endPass();
            c.membership().endWarmup();
            c.lifecycle().beginCapture(options);
        });
    }

    Graph endCapture() {
        return ending("endCapture on stream #" + c.id(), () -> {
            c.guard().checkOpen("endCapture");
            c.membership().refuseIfMember("endCapture");
            c.membership().checkJoinedBack("endCapture");
            c.window().refuseOpenViews("endCapture");
            SealedWindow sealed = c.lifecycle().endCapture();
            if (sealed.nodeLabels().size() == 0) {
                LOG.warn(
                        "stream #{}: the captured graph is empty (nothing was recorded between beginCapture and "
                                + "endCapture); its replay does nothing",
                        c.id());
            }
            c.window().registerIntermediates();
            CoreGraph graph =
                    new CoreGraph(owner, c.host().scope(), sealed, c.policy().graphKind());
            c.memory().adopt(graph);
            c.host().graphSealed(graph);
            c.host()
                    .observers()
                    .captured(c.id(), graph.id(), sealed.nodeLabels().size(), sealed.captureDuration());
            return graph;
        });
    }

    void cancelCapture() {
        transition("cancelCapture", () -> {
            c.membership().joinBackForAbort();
            c.lifecycle().cancelCapture();
        });
    }

    /**
     * Ends this stream's capture with {@code end} under its lock; whatever happens, once it no longer records, the
     * streams that joined it leave and the runtime hears that a capture ended.
     */
    <T> T ending(String operation, Supplier<T> end) {
        c.guard().lock().lock();
        try {
            return end.get();
        } catch (RuntimeException failure) {
            throw c.host().failed(operation, failure);
        } finally {
            unlockAfterWindowCall(!c.lifecycle().isRecording());
        }
    }

    /** A lifecycle call of the stream's own (not of a member): under its lock, with the window's ends after it. */
    private void transition(String operation, Runnable action) {
        c.guard().lock().lock();
        // Read under the lock: read before it, a cancel from another thread (RELAXED) racing a beginCapture would see
        // PREPARE, end the capture that began meanwhile, and leave the streams that joined it in a dissolved group.
        boolean wasRecording = c.lifecycle().isRecording();
        try {
            c.guard().checkOpen(operation);
            c.membership().refuseIfMember(operation);
            action.run();
        } catch (RuntimeException failure) {
            throw c.host().failed(operation + " on stream #" + c.id(), failure);
        } finally {
            unlockAfterWindowCall(wasRecording && !c.lifecycle().isRecording());
        }
    }

    /**
     * The end of every call that may end the window, under the stream's lock: once the capture {@code ended}, the
     * streams that joined it leave; the pooled window and the warm-up end with the window; then the lock goes, and
     * only after it the runtime hears that a capture ended (that may close deferred streams, taking their locks).
     */
    private void unlockAfterWindowCall(boolean ended) {
        try {
            if (ended) {
                c.membership().dissolveGroup();
            }
            windowEnded();
        } finally {
            c.guard().lock().unlock();
        }
        if (ended) {
            c.host().captureEnded();
        }
    }

    /** When the stream is back in NO_CAPTURE: the pooled window and the warm-up's members end with the window. */
    void windowEnded() {
        CaptureState state = c.lifecycle().current();
        c.window().endIfClosed(state);
        if (!c.policy().windowOpen(state)) {
            c.membership().endWarmup();
        }
    }

    // ---- the warm-up's members and guards ---------------------------------------------------------------

    /**
     * Before a pass of this stream's warm-up ends (or the capture begins): every stream that joined the warm-up
     * settles (its work waited for, its guards read). Called without this stream's lock (a member's comes first).
     */
    private void settleWarmupMembers() {
        for (StreamPeer member : c.membership().warmupMembers()) {
            member.settleForWarmup(c.self());
        }
    }

    /** This stream took part in {@code warmup}'s warm-up, whose pass ends: its work so far is waited for. */
    void settleForWarmup(StreamPeer warmup) {
        c.guard().lock().lock();
        try {
            boolean left = c.guard().closed() || c.membership().warmupOrigin() != warmup;
            if (left || c.host().anotherCaptureForbidsDeviceCalls(c.id())) {
                return;
            }
            c.memory().awaitAll("its part of stream #" + warmup.id() + "'s warm-up pass");
            Optional<BufferOverrunException> overrun = c.checked().check(c.backend());
            c.memory().afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        } finally {
            c.guard().lock().unlock();
        }
    }

    /**
     * Checked mode, where a warm-up pass ends: waits for this stream's work and reads the guards of what it touched,
     * which also lets go of the buffers checked mode held for that, so the next pass or the recording finds their
     * slices free. An overrun in the warm-up is the step's own failure.
     */
    private void checkWarmupGuards() {
        if (!c.checked().on() || c.host().anotherCaptureForbidsDeviceCalls(c.id())) {
            return;
        }
        c.memory().awaitAll("the warm-up pass's work before its guards are read");
        Optional<BufferOverrunException> overrun = c.checked().check(c.backend());
        overrun.ifPresent(failure -> {
            throw failure;
        });
    }
}
