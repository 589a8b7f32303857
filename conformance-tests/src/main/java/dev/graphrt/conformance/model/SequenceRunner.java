package dev.graphrt.conformance.model;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static dev.graphrt.conformance.model.StepRun.call;
import static dev.graphrt.conformance.model.StepRun.get;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCacheOptions;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.api.UpdateResult;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.conformance.model.World.Buf;
import dev.graphrt.conformance.model.World.C;
import dev.graphrt.conformance.model.World.G;
import dev.graphrt.conformance.model.World.P;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs a sequence on a fresh runtime and on the model, checking after every action ({@link Checker}), then closes
 * everything and checks nothing is left. Returns the first disagreement, or null.
 */
final class SequenceRunner {
    private final SeamsModelGroup group;
    private final Map<String, Integer> coverage;

    /**
     * @param group    opens the runtime under test (in checked mode or not), and says which failures it injected
     *                 and what its backend still holds once a runtime closed
     * @param coverage counts what the sequences exercised, by outcome (null: not counted)
     */
    SequenceRunner(SeamsModelGroup group, Map<String, Integer> coverage) {
        this.group = group;
        this.coverage = coverage;
    }

    ModelFailure run(Sequence sequence) {
        GraphRuntime runtime = open(sequence);
        boolean checked = sequence.checked();
        int index = -1;
        try {
            World world = new World(runtime, sequence, group::injected, coverage);
            world.streams.put("s0", runtime.openStream());
            if (sequence.twoStreams()) {
                world.streams.put("s1", runtime.openStream());
            }
            for (index = 0; index < sequence.actions().size(); index++) {
                Action action = sequence.actions().get(index);
                boolean applied = apply(world, action);
                world.count(action.getClass().getSimpleName() + (applied ? "" : " skipped"));
                if (applied) {
                    Checker.afterAction(world, reader(world));
                }
            }
            index = -1;
            teardown(world);
            String left = group.leftBehind();
            if (left != null) {
                throw new ModelFailure(
                        "leak: the backend holds what the closed runtime had",
                        "after the runtime " + "closed, " + left);
            }
            return null;
        } catch (ModelFailure failure) {
            return failure.at(index).inCheckedMode(checked);
        } catch (RuntimeException | Error harness) {
            return new ModelFailure(
                            "harness " + harness.getClass().getSimpleName(),
                            "the model's harness failed: " + harness,
                            harness)
                    .at(index)
                    .inCheckedMode(checked);
        } finally {
            try {
                runtime.close();
            } catch (RuntimeException ignored) {
                // a failure was already reported, or the teardown checked the close
            }
        }
    }

    /** Opens the sequence's runtime: a lean one with {@link World#LEAN_PROPERTIES} set while it opens. */
    private GraphRuntime open(Sequence sequence) {
        Map<String, String> before = new java.util.HashMap<>();
        if (sequence.lean()) {
            World.LEAN_PROPERTIES.forEach((key, value) -> {
                before.put(key, System.getProperty(key));
                System.setProperty(key, value);
            });
        }
        try {
            return group.openRuntime(sequence.checked());
        } finally {
            before.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }

    /** The stream that reads for the checks: s0 while open, else s1, else one opened for it. */
    private static GpuStream reader(World world) {
        for (String name : List.of("s0", "s1", "check")) {
            if (world.stream(name) != null) {
                return world.stream(name);
            }
        }
        world.streams.put("check", world.runtime.openStream());
        return world.streams.get("check");
    }

    /**
     * Runs {@code body} on {@code stream}; work on a stream other than s0 is ordered after s0's and back, so reads
     * through s0 see it.
     */
    private static void joined(World world, String stream, Runnable body) {
        GpuStream s0 = world.stream("s0");
        GpuStream s = world.stream(stream);
        boolean join = s0 != null && s != s0;
        if (join) {
            call("s1.waitFor(s0.record())", () -> s.waitFor(s0.record()));
        }
        body.run();
        if (join) {
            call("s0.waitFor(s1.record())", () -> s0.waitFor(s.record()));
        }
    }

    /** Applies one action to the backend and the model; false when it was skipped (its names are gone). */
    private boolean apply(World world, Action action) {
        if (action.stream() != null && world.stream(action.stream()) == null) {
            return false;
        }
        GpuStream s = action.stream() == null ? null : world.stream(action.stream());
        switch (action) {
            case Action.Allocate a ->
                joined(
                        world,
                        a.stream(),
                        () -> world.add(
                                a.buffer(),
                                "buffer",
                                a.words(),
                                get("allocate", () -> s.allocate(a.words() * 4L)),
                                true));
            case Action.Upload u ->
                joined(world, u.stream(), () -> {
                    int[] data = KitKernels.pattern(u.words(), u.seed());
                    world.add(u.buffer(), "buffer", u.words(), get("upload", () -> s.upload(data)), true)
                            .write(data);
                });
            case Action.Write w -> {
                Buf dst = world.open(w.buffer());
                if (dst == null || w.words() > dst.words) {
                    return false;
                }
                int[] data = KitKernels.pattern(w.words(), w.seed());
                joined(world, w.stream(), () -> call("write", () -> s.write(dst.real, data)));
                dst.write(data);
            }
            case Action.Launch l -> {
                Buf src = world.open(l.src());
                Buf dst = world.open(l.dst());
                if (src == null || dst == null || src == dst || l.n() > Math.min(src.words, dst.words)) {
                    return false;
                }
                joined(
                        world,
                        l.stream(),
                        () -> call(
                                "launch",
                                () -> s.launch(
                                        world.kernel(l.kernel()),
                                        LaunchDims.linear(l.n(), BLOCK),
                                        KernelArgs.of(src.real, dst.real).info(l.n()))));
                World.launch(l.kernel(), src, dst, l.n());
            }
            case Action.Copy c -> {
                Buf src = world.open(c.src());
                Buf dst = world.open(c.dst());
                if (src == null || dst == null || src == dst || dst.words < src.words) {
                    return false;
                }
                joined(world, c.stream(), () -> call("copy", () -> s.copy(src.real, dst.real)));
                World.copy(src, dst);
            }
            case Action.Event e -> {
                GpuStream other = world.stream(e.other());
                if (other == null) {
                    return false;
                }
                call("waitFor", () -> other.waitFor(s.record()));
                StreamEvent done = get("record", s::record);
                call("await", done::await);
                if (!get("isComplete", done::isComplete)) {
                    throw new ModelFailure("event", "an event is not complete after await()");
                }
            }
            case Action.Capture c -> {
                return capture(world, c, s);
            }
            case Action.OpenPool p ->
                world.pools.put(p.pool(), new P(p.pool(), get("graphPool", world.runtime::graphPool)));
            case Action.OpenCache c ->
                world.caches.put(
                        c.cache(),
                        new C(
                                c.cache(),
                                c.stream(),
                                get(
                                        "graphCache",
                                        () -> world.runtime.<String>graphCache(
                                                s, GraphCacheOptions.defaults().maxGraphs(c.maxGraphs()))),
                                c.maxGraphs()));
            case Action.RunCache r -> {
                return Lifecycles.runCache(world, r, body -> joined(world, r.stream(), body));
            }
            case Action.Replay r -> {
                G graph = world.graph(r.graph());
                if (graph == null) {
                    return false;
                }
                joined(world, r.stream(), () -> call("replay", graph.real::replay));
                graph.replay();
            }
            case Action.ReplayAndClose r -> {
                return Lifecycles.replayAndClose(world, r, s, body -> joined(world, r.stream(), body));
            }
            case Action.Update u -> {
                return update(world, u);
            }
            case Action.Rebind r -> {
                return Lifecycles.rebind(world, r, body -> joined(world, r.stream(), body));
            }
            case Action.Churn c -> joined(world, c.stream(), () -> Lifecycles.churn(world, c, s));
            case Action.Trim t -> call("trim", world.runtime::trim);
            case Action.Close c -> {
                return Lifecycles.close(world, c);
            }
            case Action.Join j -> {
                return Lifecycles.join(world, j, s);
            }
            case Action.AllReduce a -> {
                return Lifecycles.allReduce(world, a, body -> joined(world, a.stream(), body));
            }
        }
        return true;
    }

    private static boolean capture(World world, Action.Capture c, GpuStream s) {
        P pool = c.pool() == null ? null : world.pools.get(c.pool());
        if (c.pool() != null && pool == null) {
            return false;
        }
        CaptureOptions options = CaptureOptions.defaults().warmups(c.warmups());
        Class<? extends RuntimeException> before = null;
        String why = null;
        if (pool != null) {
            options = options.pool(pool.real);
            if (!pool.open) {
                before = IllegalStateException.class;
                why = "the pool is closed";
            } else if (pool.boundStream != null && !pool.boundStream.equals(c.stream())) {
                before = IllegalArgumentException.class;
                why = "the pool belongs to the stream of its first capture, " + pool.boundStream;
            } else {
                pool.boundStream = c.stream();
            }
        }
        StepRun run = new StepRun(world, c.step(), c.warmups(), c.stream(), pool != null);
        CaptureOptions chosen = options;
        Graph[] graph = new Graph[1];
        Class<? extends RuntimeException> refusedBefore = before;
        String refusal = why;
        joined(
                world,
                c.stream(),
                () -> graph[0] = captured(
                        world,
                        "capture of " + c.graph(),
                        run,
                        c.warmups(),
                        () -> s.capture(chosen, run.consumer()),
                        refusedBefore,
                        refusal));
        if (graph[0] != null) {
            world.graphs.put(c.graph(), new G(c.graph(), c.stream(), graph[0], run));
        }
        return true;
    }

    /**
     * Runs a capture-like call and checks its outcome: the refusal {@code before} (with the step never run), else the
     * step's own prediction. Returns the result, or null after a predicted refusal.
     */
    static <T> T captured(
            World world,
            String call,
            StepRun run,
            int warmups,
            Supplier<T> capture,
            Class<? extends RuntimeException> before,
            String why) {
        String category = call.substring(0, call.indexOf(' ')).replaceAll("^[a-z]\\d+\\.", "cache ");
        T result = null;
        RuntimeException thrown = null;
        try {
            result = capture.get();
        } catch (RuntimeException refused) {
            thrown = refused;
        }
        if (before != null) {
            ModelFailure.expectRefusal(call, before, thrown, why);
            world.count(
                    category + " refused before the step: " + thrown.getClass().getSimpleName());
            if (run.passes() != 0) {
                throw new ModelFailure(
                        "step ran before a refusal",
                        call + " ran the step " + run.passes() + " time(s) before refusing: " + why);
            }
            return null;
        }
        Class<? extends RuntimeException> predicted = run.predictedRefusal();
        if (predicted == null) {
            if (thrown != null) {
                throw ModelFailure.unpredictedRefusal(call, thrown);
            }
            if (run.passes() != warmups + 1) {
                throw new ModelFailure(
                        "step run count", call + " ran the step " + run.passes() + " time(s), not " + (warmups + 1));
            }
            world.count(category + " succeeded");
            return result;
        }
        if (thrown == null) {
            if (result instanceof Graph graph) {
                graph.close();
            }
            throw ModelFailure.unpredictedSuccess(call, run.why());
        }
        if (!predicted.isInstance(thrown)) {
            throw ModelFailure.wrongRefusal(call, predicted, thrown);
        }
        world.count(category + " refused as predicted: " + thrown.getClass().getSimpleName());
        run.leaveToTheUser();
        return null;
    }

    private static boolean update(World world, Action.Update u) {
        G graph = world.graph(u.graph());
        if (graph == null
                || world.graphKind == GraphKind.HARDWARE
                        && graph.ops.stream().anyMatch(op -> !(op instanceof World.GLaunch))) {
            return false; // a hardware graph's recorded writes and copies are nodes too: not a launch-only shape
        }
        if (graph.ops.stream().anyMatch(op -> op instanceof World.GReduce)
                || u.step().any(op -> op instanceof StepOp.Reduce)) {
            return false; // a collective's node is the library's (NCCL's kernels) or a launch of its own: no shape
        }
        StepRun run = new StepRun(world, u.step(), u.warmups(), graph.stream, false);
        boolean declared = world.declares(Capability.GRAPH_UPDATE);
        UpdateResult[] result = new UpdateResult[1];
        joined(
                world,
                graph.stream,
                () -> result[0] = captured(
                        world,
                        "update of " + graph.name,
                        run,
                        u.warmups(),
                        () -> graph.real.update(CaptureOptions.defaults().warmups(u.warmups()), run.consumer()),
                        declared ? null : UnsupportedCapabilityException.class,
                        "GRAPH_UPDATE is not declared"));
        if (result[0] == null) {
            return true;
        }
        boolean sameShape = World.G.shape(run.recorded()).equals(graph.shape());
        // A hardware graph's nodes are linked as the streams recorded them: a fork or join placed differently
        // changes the topology even for the same kernels in the same order.
        boolean sameEdges =
                world.graphKind != GraphKind.HARDWARE || run.recordedEdges().equals(graph.edges);
        boolean applies = sameShape && sameEdges;
        if (result[0].applied() != applies) {
            throw new ModelFailure(
                    "update result",
                    "update of " + graph.name + " returned " + result[0] + "; the "
                            + "model predicts "
                            + (applies
                                    ? "Applied: the same kernels in the same order, linked alike "
                                    : sameShape
                                            ? "Rejected: the same kernels, linked otherwise " + graph.edges + " -> "
                                                    + run.recordedEdges() + ": "
                                            : "Rejected: ")
                            + graph.shape() + " -> " + World.G.shape(run.recorded()));
        }
        world.count(applies ? "update applied" : sameShape ? "update rejected: topology" : "update rejected");
        if (applies) {
            graph.adopt(run);
        }
        return true;
    }

    /** Closes everything, checks nothing is held; closes the runtime, checks nothing is left. */
    private static void teardown(World world) {
        for (C cache : world.caches.values()) {
            call("close of " + cache.name, cache.real::close);
            cache.open = false;
        }
        List<G> graphs = new ArrayList<>(world.graphs.values());
        for (int i = graphs.size() - 1; i >= 0; i--) {
            call("close of " + graphs.get(i).name, graphs.get(i).real::close);
            graphs.get(i).open = false;
        }
        for (P pool : world.pools.values()) {
            call("close of " + pool.name, pool.real::close);
        }
        for (World.Comm comm : world.comms.values()) {
            call("close of " + comm.name, comm.real::close);
            comm.open = false;
        }
        for (Buf buf : world.all) {
            call("close of " + buf, buf.real::close);
            buf.userOpen = false;
        }
        for (Map.Entry<String, GpuStream> entry : world.streams.entrySet()) {
            if (world.stream(entry.getKey()) != null) {
                world.reporting("synchronize of " + entry.getKey(), entry.getValue()::synchronize);
            }
        }
        Checker.nothingHeld(world);
        for (GpuStream stream : world.streams.values()) {
            world.reporting("close of a stream", stream::close);
        }
        world.reporting("close of the runtime", world.runtime::close);
        Checker.nothingLeft(world);
    }
}
