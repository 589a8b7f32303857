package dev.graphrt.conformance.model;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static dev.graphrt.conformance.model.StepRun.call;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.conformance.model.World.Buf;
import dev.graphrt.conformance.model.World.C;
import dev.graphrt.conformance.model.World.G;
import dev.graphrt.conformance.model.World.GLaunch;
import dev.graphrt.conformance.model.World.GOp;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The actions on graphs the user already has: a cache's run, a rebind, and closing any handle. */
final class Lifecycles {
    private Lifecycles() {}

    /**
     * {@code cache.run(key, step)}: a closed cache refuses; a hit replays the key's graph without running the step;
     * a miss captures with one warm-up into the cache's pool and evicts the least recently used beyond the bound.
     */
    static boolean runCache(World world, Action.RunCache r, Consumer<Runnable> joined) {
        C cache = world.caches.get(r.cache());
        if (cache == null || world.stream(cache.stream) == null) {
            return false;
        }
        if (!cache.open) {
            Throwable[] thrown = new Throwable[1];
            joined.accept(() -> {
                try {
                    cache.real.run(r.key(), s -> {
                        throw new ModelFailure("closed cache ran the step", cache.name + " is closed but ran a step");
                    });
                } catch (RuntimeException refused) {
                    thrown[0] = refused;
                }
            });
            ModelFailure.expectRefusal(
                    cache.name + ".run", IllegalStateException.class, thrown[0], "the cache is closed");
            return true;
        }
        G hit = cache.graphs.get(r.key());
        if (hit != null) {
            joined.accept(() -> call(
                    cache.name + ".run (a hit)",
                    () -> cache.real.run(r.key(), s -> {
                        throw new ModelFailure(
                                "a cache hit ran the step",
                                cache.name + " ran the step of key " + r.key() + " although its graph is cached");
                    })));
            hit.replay();
            world.count("cache hit");
            return true;
        }
        StepRun run = new StepRun(world, r.step(), 1, cache.stream, true);
        Object[] captured = new Object[1];
        joined.accept(() -> captured[0] = SequenceRunner.captured(
                world,
                cache.name + ".run (a miss)",
                run,
                1,
                () -> {
                    cache.real.run(r.key(), run.consumer());
                    return Boolean.TRUE;
                },
                null,
                null));
        if (captured[0] != null) {
            cache.graphs.put(r.key(), new G(cache.name + "[" + r.key() + "]", cache.stream, null, run));
            for (Iterator<Map.Entry<String, G>> it = cache.graphs.entrySet().iterator();
                    cache.graphs.size() > cache.maxGraphs; ) {
                G evicted = it.next().getValue();
                it.remove();
                evicted.open = false;
            }
        }
        return true;
    }

    /**
     * {@code graph.rebind(from, to)}: every recorded launch passing {@code from} passes {@code to} instead. Skipped
     * where the call would be refused for its arguments (a closed buffer, another size) or where it would make a
     * launch pass one buffer twice; refused without GRAPH_UPDATE, and when no launch passes {@code from}.
     */
    static boolean rebind(World world, Action.Rebind r, Consumer<Runnable> joined) {
        G graph = world.graph(r.graph());
        Buf from = world.open(r.from());
        Buf to = world.open(r.to());
        if (graph == null || from == null || to == null || from == to || from.words != to.words) {
            return false;
        }
        for (GOp op : graph.ops) {
            if (op instanceof World.GReduce reduce && (reduce.touches(from) || reduce.touches(to))) {
                return false; // a driver capture leaves a collective's buffers as they are, a software graph patches
                // them
            }
        }
        int patched = 0;
        for (GOp op : graph.ops) {
            if (op instanceof GLaunch launch && (launch.src() == from || launch.dst() == from)) {
                if (launch.src() == to || launch.dst() == to) {
                    return false;
                }
                patched++;
            }
        }
        Class<? extends RuntimeException> refusal = !world.declares(Capability.GRAPH_UPDATE)
                ? UnsupportedCapabilityException.class
                : patched == 0 ? IllegalArgumentException.class : null;
        int[] got = new int[1];
        Throwable[] thrown = new Throwable[1];
        joined.accept(() -> {
            try {
                got[0] = graph.real.rebind(from.real, to.real);
            } catch (RuntimeException refused) {
                thrown[0] = refused;
            }
        });
        String call = graph.name + ".rebind(" + from + ", " + to + ")";
        if (refusal != null) {
            ModelFailure.expectRefusal(
                    call,
                    refusal,
                    thrown[0],
                    refusal == IllegalArgumentException.class
                            ? "no launch of the graph passes " + from
                            : "GRAPH_UPDATE is not declared");
            return true;
        }
        if (thrown[0] != null) {
            throw ModelFailure.unpredictedRefusal(call, thrown[0]);
        }
        if (got[0] != patched) {
            throw new ModelFailure(
                    "rebind count", call + " patched " + got[0] + " launches; " + patched + " pass " + from);
        }
        List<GOp> ops = new ArrayList<>();
        for (GOp op : graph.ops) {
            if (op instanceof GLaunch l && (l.src() == from || l.dst() == from)) {
                ops.add(new GLaunch(l.kernel(), l.src() == from ? to : l.src(), l.dst() == from ? to : l.dst(), l.n()));
            } else {
                ops.add(op);
            }
        }
        graph.ops = List.copyOf(ops);
        return true;
    }

    /** Closes a buffer the graph writes, replays and closes the graph, and writes new buffers from another stream. */
    static boolean replayAndClose(World world, Action.ReplayAndClose r, GpuStream s, Consumer<Runnable> joined) {
        G graph = world.graph(r.graph());
        if (graph == null) {
            return false;
        }
        Buf first = r.closeFirst() == null ? null : world.open(r.closeFirst());
        int[] data = KitKernels.pattern(r.words(), r.seed());
        GpuStream writer = world.stream(r.writer()) != null ? world.stream(r.writer()) : s;
        Buf[] fresh = new Buf[Action.ReplayAndClose.BUFFERS];
        joined.accept(() -> {
            if (first != null) {
                call("close of " + first, first.real::close);
                first.userOpen = false;
                world.lazy.remove(r.closeFirst(), first);
            }
            call("replay", graph.real::replay);
            call("close of " + graph.name, graph.real::close);
            for (int i = 0; i < fresh.length; i++) {
                Buf made = world.add(
                        r.buffer(),
                        "buffer",
                        r.words(),
                        StepRun.get("allocate", () -> s.allocate(r.words() * 4L)),
                        true);
                call("write", () -> writer.write(made.real, data));
                fresh[i] = made;
            }
            if (writer != s) {
                call("waitFor", () -> s.waitFor(writer.record()));
            }
        });
        graph.replay();
        graph.open = false;
        for (Buf made : fresh) {
            made.write(data);
        }
        return true;
    }

    /**
     * Allocate/close cycles without a synchronize. Of one size: a freed allocation serves the next one (exact fit
     * above the pooled sizes), so reserved grows by at most two of them (one may still wait behind a fence) and a
     * page or two of the dynamic pool. In flight (distinct sizes, each closed while a launch still uses it): the
     * closed ones come back only once their work is done, and what the pools keep free or on its way back stays
     * within the reserve, so reserved grows by at most the reserve and the few buffers live or in the making (the
     * dynamic pool's new pages, for the launches' info blocks, aside). Not in checked mode, which holds every buffer
     * a launch used until the next synchronize reads its guards, by design: there only the host's syncs bound it.
     */
    static void churn(World world, Action.Churn c, GpuStream s) {
        MemoryStats before = Checker.stats(world);
        long pagesBefore = world.pageGrowthBytes.get();
        long peak = before.reservedBytes();
        if (!c.inFlight()) {
            for (int i = 0; i < c.cycles(); i++) {
                call(
                        "allocate(" + c.bytes() + ").close()",
                        () -> s.allocate(c.bytes()).close());
            }
            peak = Checker.stats(world).reservedBytes();
        } else {
            int n = (int) (c.bytes() / 4);
            Buffer prev = StepRun.get("allocate(" + c.bytes() + ")", () -> s.allocate(c.bytes()));
            for (int i = 1; i < c.cycles(); i++) {
                long bytes = c.bytes() + Action.Churn.STRIDE * i;
                Buffer next = StepRun.get("allocate(" + bytes + ")", () -> s.allocate(bytes));
                Buffer src = prev;
                call(
                        "launch into " + bytes + " bytes",
                        () -> s.launch(
                                world.addOne,
                                LaunchDims.linear(n, BLOCK),
                                KernelArgs.of(src, next).info(n)));
                call("close while a launch uses it", prev::close);
                prev = next;
                peak = Math.max(
                        peak,
                        world.runtime.memoryStats().reservedBytes() - (world.pageGrowthBytes.get() - pagesBefore));
            }
            call("close", prev::close);
        }
        long largest = c.bytes() + (c.inFlight() ? Action.Churn.STRIDE * c.cycles() : 0) + (64 << 10);
        long bound = before.reservedBytes()
                + (c.inFlight()
                        ? (world.lean
                                        ? World.LEAN_RESERVE
                                        : RuntimeOptions.defaults().poolReserveBytes())
                                + 3 * largest
                        : 2 * largest + 2 * RuntimeOptions.defaults().pageBytes());
        if (c.inFlight() && world.checked) {
            world.count("churn in flight in checked mode (held until a synchronize)");
        } else if (peak > bound) {
            throw new ModelFailure(
                    "budget: reserved grows with allocate/close cycles" + (c.inFlight() ? " in flight" : ""),
                    c.cycles() + " cycles of " + c.bytes()
                            + (c.inFlight() ? "+ bytes, each closed while a " + "launch used it," : " bytes")
                            + " grew reservedBytes from " + before.reservedBytes() + " to "
                            + peak + (c.inFlight() ? " (new dynamic pages aside)" : "") + ", beyond " + bound
                            + " (before + "
                            + (c.inFlight()
                                    ? "the pool reserve + three allocations)"
                                    : "two allocations + two pages)"));
        }
    }

    /** A communicator of one rank on the action's stream; refused without COLLECTIVES, at {@code collectives()}. */
    static boolean join(World world, Action.Join j, GpuStream s) {
        if (world.comms.containsKey(j.comm())) {
            return false;
        }
        Communicator made = null;
        Throwable thrown = null;
        try {
            made = world.runtime.collectives().join(world.runtime.collectives().newId(), 0, 1, s);
        } catch (RuntimeException refused) {
            thrown = refused;
        }
        String call = "join of " + j.comm() + " on " + j.stream();
        if (!world.declares(Capability.COLLECTIVES)) {
            if (made != null) {
                made.close();
            }
            ModelFailure.expectRefusal(
                    call, UnsupportedCapabilityException.class, thrown, "COLLECTIVES is not declared");
            world.count("join refused: COLLECTIVES not declared");
            return true;
        }
        if (thrown != null) {
            throw ModelFailure.unpredictedRefusal(call, thrown);
        }
        world.comms.put(j.comm(), new World.Comm(j.comm(), j.stream(), made));
        return true;
    }

    /**
     * An all-reduce of one rank on its communicator's stream: a copy of {@code src} into {@code dst}; refused, writing
     * nothing, when the communicator is closed (IllegalStateException) or {@code dst} is smaller (IllegalArgument).
     */
    static boolean allReduce(World world, Action.AllReduce a, Consumer<Runnable> joined) {
        World.Comm comm = world.comm(a.comm());
        Buf src = world.open(a.src());
        Buf dst = world.open(a.dst());
        if (comm == null || src == null || dst == null || !comm.stream.equals(a.stream())) {
            return false;
        }
        Throwable[] thrown = new Throwable[1];
        joined.accept(() -> {
            try {
                comm.real.allReduce(src.real, dst.real, ReduceOp.SUM, ElementType.INT32);
            } catch (RuntimeException refused) {
                thrown[0] = refused;
            }
        });
        String call = a.comm() + ".allReduce(" + src + ", " + dst + ")";
        if (!comm.open) {
            ModelFailure.expectRefusal(call, IllegalStateException.class, thrown[0], "the communicator is closed");
            world.count("all-reduce refused: closed");
        } else if (dst.words < src.words) {
            ModelFailure.expectRefusal(
                    call,
                    IllegalArgumentException.class,
                    thrown[0],
                    "recv is smaller than send (" + src.words + " words)");
            world.count("all-reduce refused: recv too small");
        } else if (thrown[0] != null) {
            throw ModelFailure.unpredictedRefusal(call, thrown[0]);
        } else {
            World.copy(src, dst);
            world.count(src == dst ? "all-reduce in place" : "all-reduce");
        }
        return true;
    }

    /** Closes a buffer (a graph using it keeps it alive), a graph, a pool, a cache (and its graphs) or a stream. */
    static boolean close(World world, Action.Close c) {
        switch (c.kind()) {
            case BUFFER -> {
                Buf buf = world.open(c.name());
                if (buf == null) {
                    return false;
                }
                call("close of " + buf, buf.real::close);
                buf.userOpen = false;
                world.lazy.remove(c.name(), buf);
            }
            case GRAPH -> {
                G graph = world.graphs.get(c.name());
                if (graph == null || !graph.open) {
                    return false;
                }
                call("close of " + graph.name, graph.real::close);
                graph.open = false;
            }
            case POOL -> {
                World.P pool = world.pools.get(c.name());
                if (pool == null || !pool.open) {
                    return false;
                }
                call("close of " + pool.name, pool.real::close);
                pool.open = false;
            }
            case CACHE -> {
                C cache = world.caches.get(c.name());
                if (cache == null || !cache.open) {
                    return false;
                }
                call("close of " + cache.name, cache.real::close);
                cache.open = false;
                cache.graphs.values().forEach(g -> g.open = false);
                cache.graphs.clear();
            }
            case COMMUNICATOR -> {
                World.Comm comm = world.comm(c.name());
                if (comm == null || !comm.open) {
                    return false;
                }
                call("close of " + comm.name, comm.real::close); // a graph that recorded it keeps it
                comm.open = false;
            }
            case STREAM -> {
                GpuStream stream = world.stream(c.name());
                if (stream == null) {
                    return false;
                }
                world.reporting("close of " + c.name(), stream::close);
                world.streamClosed(c.name());
            }
        }
        return true;
    }
}
