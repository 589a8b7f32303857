package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphDiagnosis;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.core.events.GraphUpdateEvent;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.SealedWindow;
import dev.graphrt.core.memory.Retainable;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.spi.RecordedLaunch;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes to a live graph of the stream, and its diagnosis: {@code update} re-records the step into the graph (the
 * capture lifecycle, then the lifecycle's endUpdate), {@code rebind} points launches at another buffer, and
 * {@code diagnose} re-runs the recorded launches one at a time. Each checks everything before anything changes, and
 * retires what the graph no longer uses behind the replays enqueued so far.
 */
final class GraphEdits {
    private static final Logger LOG = LoggerFactory.getLogger(GraphEdits.class);

    private final CaptureCalls capture;
    private final StreamContext c;

    GraphEdits(StreamContext c, CaptureCalls capture) {
        this.c = c;
        this.capture = capture;
    }

    /**
     * Re-records {@code step} into {@code graph}: the same lifecycle as a capture, then the lifecycle's
     * {@code endUpdate}; an applied update swaps the graph's window and retires the old one behind the replays
     * enqueued so far (prepare() already waited for them).
     */
    UpdateResult update(GpuStream stream, CoreGraph graph, CaptureOptions options, Consumer<GpuStream> step) {
        c.host().checkOpen("update");
        checkOwnGraph(graph, "update");
        c.guard().run("update", graph, () -> {
            c.policy().checkGraphChange(c.membership().state(), "update", graph, c.id());
            checkChangeable(graph, "update");
        });
        GraphUpdateEvent event = new GraphUpdateEvent();
        event.begin();
        String outcome = "failed";
        try {
            UpdateResult result = capture.run(stream, options, step, () -> endUpdate(graph));
            outcome = result.applied() ? "applied" : "rejected";
            return result;
        } finally {
            commit(event, graph, "update", outcome);
        }
    }

    private UpdateResult endUpdate(CoreGraph graph) {
        return capture.ending("update of " + graph, () -> {
            c.guard().checkOpen("update");
            if (graph.isClosed()) {
                throw new IllegalStateException("update: " + graph + " was closed while its update recorded");
            }
            c.membership().checkJoinedBack("update");
            c.window().refuseOpenViews("update");
            CaptureLifecycle.UpdateOutcome outcome = c.lifecycle().endUpdate(graph.id(), graph.window());
            if (outcome.window() != null) {
                c.window().registerIntermediates();
                SealedWindow old = graph.swap(outcome.window());
                c.memory().retire(graph, old, outcome.window());
            } else {
                LOG.debug("stream #{}: update of {} rejected: {}", c.id(), graph, outcome.result());
            }
            return outcome.result();
        });
    }

    /**
     * Points every recorded launch of {@code graph} that passes {@code from} at {@code to}. Everything is checked
     * before anything changes; {@code to} gets the graph's hold first, and the replaced window's holds (so
     * {@code from}'s) are released behind the replays enqueued so far.
     */
    int rebind(CoreGraph graph, Buffer from, Buffer to) {
        c.host().checkOpen("rebind");
        checkOwnGraph(graph, "rebind");
        GraphUpdateEvent event = new GraphUpdateEvent();
        event.begin();
        String outcome = "failed";
        try {
            int patched = rebindNow(graph, from, to);
            outcome = "applied";
            return patched;
        } finally {
            commit(event, graph, "rebind", outcome);
        }
    }

    private int rebindNow(CoreGraph graph, Buffer from, Buffer to) {
        CoreBuffer source = c.host().checkBuffer(from, "from");
        CoreBuffer target = c.host().checkBuffer(to, "to");
        if (source.byteSize() != target.byteSize()) {
            throw new IllegalArgumentException("to: " + target + " differs in size from from: " + source
                    + "; a rebind keeps every launch's sizes");
        }
        return c.guard().call("rebind", graph, () -> {
            c.policy().checkGraphChange(c.membership().state(), "rebind", graph, c.id());
            checkChangeable(graph, "rebind");
            SealedWindow old = graph.window();
            LaunchIndex index = graph.launchIndex(old.recording());
            GraphRebinding rebinding = GraphRebinding.of(old.recording(), index, source.storage(), target.storage());
            if (rebinding.changed().length == 0) {
                throw new IllegalArgumentException("from: " + source + " is not an argument of any launch of " + graph);
            }
            if (source == target) {
                return rebinding.changed().length;
            }
            List<Retainable> holds = rebinding.holdsAfter(old, source, target);
            SealedWindow next;
            try {
                next = old.rebound(
                        c.lifecycle().rebind(old.graph(), old.recording(), rebinding.patched(), rebinding.changed()),
                        rebinding.patched(),
                        holds);
            } catch (RuntimeException | Error failure) {
                // The backend may have patched some launches before failing (its rollback may fail too): the graph
                // keeps its recording and holds both buffers from now on, so nothing it may still pass is freed.
                if (!holds.contains(source) && source.retain()) {
                    holds.add(source);
                }
                SealedWindow kept = old.rebound(old.graph(), old.recording(), holds);
                graph.swap(kept);
                c.memory().retire(graph, old, kept);
                throw failure;
            }
            graph.swap(next);
            graph.keepLaunchIndex(index.moved(next.recording(), source.storage(), target.storage()));
            c.memory().retireRebound(graph, old, next);
            return rebinding.changed().length;
        });
    }

    /** A closed graph, or one a live parent replays as a child (whose copy uses its memory), cannot change. */
    private static void checkChangeable(CoreGraph graph, String operation) {
        if (graph.isClosed()) {
            throw new IllegalStateException(operation + ": " + graph + " is closed");
        }
        if (graph.nested()) {
            throw new IllegalStateException(operation + ": " + graph + " is replayed inside another live graph (a child"
                    + " graph), whose copy of it uses its memory; close the parent first, or capture a new graph");
        }
    }

    private void checkOwnGraph(CoreGraph graph, String operation) {
        if (graph.owner() != c.self()) {
            throw new IllegalArgumentException(operation + ": " + graph + " belongs to stream #"
                    + graph.owner().id());
        }
    }

    private static void commit(GraphUpdateEvent event, CoreGraph graph, String kind, String outcome) {
        event.end();
        if (event.shouldCommit()) {
            event.graph = graph.id();
            event.kind = kind;
            event.outcome = outcome;
            event.commit();
        }
    }

    /**
     * Re-runs a graph's recorded launches eagerly, one at a time, each followed by a bounded wait, a synchronize
     * and (checked mode) a look at the guards of the graph's buffers; the first that fails is reported.
     */
    GraphDiagnosis diagnose(CoreGraph graph) {
        return c.guard().call("diagnose", graph, () -> {
            c.checkHostSyncBesideCapture("diagnose");
            c.policy().checkDiagnose(c.membership().state(), c.id());
            if (graph.isClosed()) {
                throw new IllegalStateException("diagnose: " + graph + " is closed");
            }
            c.memory().awaitAll("the work before a diagnosis");
            c.backend().synchronize();
            List<RecordedLaunch> launches = graph.window().recording().launches();
            for (int i = 0; i < launches.size(); i++) {
                RecordedLaunch step = launches.get(i);
                GraphRTException failure = diagnoseStep(graph, step, i);
                if (failure != null) {
                    return new GraphDiagnosis(graph.id(), launches.size(), i, LaunchRecorder.label(step), failure);
                }
            }
            return new GraphDiagnosis(graph.id(), launches.size(), -1, "", null);
        });
    }

    private @Nullable GraphRTException diagnoseStep(CoreGraph graph, RecordedLaunch step, int index) {
        try {
            c.backend().launch(step.kernel(), step.dims(), step.bindings());
            c.memory().awaitAll("diagnosis step " + index + " of " + graph);
            c.backend().synchronize();
            String label = "diagnosis step " + index + ": " + LaunchRecorder.label(step);
            return c.checked().checkGraph(graph, label, c.backend()).orElse(null);
        } catch (GraphRTException failure) {
            c.host().failed("diagnosis step " + index + " of " + graph, failure);
            return failure;
        } catch (RuntimeException raw) {
            return new DriverException("diagnosis step " + index + " of " + graph, raw);
        }
    }
}
