package dev.graphrt.conformance.model;

import static dev.graphrt.conformance.KitKernels.BLOCK;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.api.StreamEvent;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.conformance.model.StepOp.Step;
import dev.graphrt.conformance.model.World.Buf;
import dev.graphrt.conformance.model.World.GOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs one step program inside a capture (or a cache miss, or an update): each warm-up pass eagerly on the backend
 * and the model at once, then the recorded pass, whose operations become the graph's model. It predicts what the
 * recorded pass must refuse (DESIGN.md section 3): eagerly, a read, an allocation without warm-ups where the window
 * may not grow the pool, an event without MULTI_STREAM_CAPTURE (the step then stops, as a user's would); lazily, a
 * write without RECORDS_WRITES and a copy into a software graph (the capture then fails at its end).
 */
final class StepRun {
    private final World world;
    private final Step step;
    private final int warmups;
    private final String streamName;
    private final boolean pooled;
    private int passes;
    private final List<GOp> recorded = new ArrayList<>();
    /** Per node of the recorded pass, the nodes it depends on: how stream capture links them (see {@link #node}). */
    private final List<Set<Integer>> recordedEdges = new ArrayList<>();
    /** The nodes the stream now recording would make its next node depend on. */
    private Set<Integer> frontier = new HashSet<>();

    private final List<Buf> recordedAllocations = new ArrayList<>();
    /** Allocations of the recorded pass that stay open (outputs, lazy outputs): the pool may grow for each. */
    private int recordedKept;

    private RuntimeException eagerRefusal;
    private final List<String> lazyRejections = new ArrayList<>();

    /** @param pooled whether the capture shares a graph pool's intermediates, which may serve an allocation */
    StepRun(World world, Step step, int warmups, String streamName, boolean pooled) {
        this.world = world;
        this.step = step;
        this.warmups = warmups;
        this.streamName = streamName;
        this.pooled = pooled;
    }

    /** The step as the capture calls it: pass {@code warmups} is the recorded one. */
    Consumer<GpuStream> consumer() {
        return s -> {
            int pass = passes++;
            if (pass > warmups) {
                throw new ModelFailure(
                        "step run too often",
                        "the step ran a " + (pass + 1) + "th time; a capture with " + warmups + " warm-up(s) runs it "
                                + (warmups + 1) + " times");
            }
            Map<String, Buf> slots = new HashMap<>();
            String suffix = pass == warmups ? "" : "w" + pass;
            int grewBefore = world.captureGrowths.get();
            for (StepOp op : step.ops()) {
                run(op, s, slots, pass == warmups, suffix);
            }
            if (pass == warmups && warmups > 0) {
                checkPrimed(world.captureGrowths.get() - grewBefore);
            }
        };
    }

    /**
     * The warm-ups ran this very step, so they primed the capture pool for its recording (DESIGN.md section 3): the
     * recorded pass may grow it only for what the warm-ups kept open (an output, a lazy output), never for what they
     * closed; a temporary of the warm-up (of a stream it forked to, or one checked mode still watched) is free again.
     */
    private void checkPrimed(int grew) {
        if (grew > recordedKept) {
            throw new ModelFailure(
                    "memory: the recorded pass grew the capture pool",
                    "the recorded pass of a step "
                            + "that " + warmups + " warm-up(s) ran grew the capture pool " + grew
                            + " time(s) for buffers, "
                            + "beyond the " + recordedKept + " allocation(s) the warm-ups kept open (outputs)");
        }
        world.count(grew > 0 ? "recorded pass grew only for outputs" : "recorded pass found the pool primed");
    }

    int passes() {
        return passes;
    }

    /** The refusal the capture must end in: the recorded pass's eager one, else a lazy one; null for success. */
    Class<? extends RuntimeException> predictedRefusal() {
        if (eagerRefusal != null) {
            return eagerRefusal.getClass();
        }
        return lazyRejections.isEmpty() ? null : CaptureRejectedException.class;
    }

    String why() {
        return eagerRefusal != null
                ? "the recorded pass was refused eagerly: " + eagerRefusal.getMessage()
                : "the recorded pass holds what " + world.runtime.backendName() + " cannot record: " + lazyRejections;
    }

    List<GOp> recorded() {
        return recorded;
    }

    /**
     * The recorded pass as a driver's stream capture links it: per node (a launch, a write, a copy) in the order
     * recorded, the nodes it depends on. A node depends on its stream's last node; a wait adds the recording
     * stream's nodes at its record, and the join adds the other stream's. A hardware graph updates in place only
     * onto the same topology ({@code cuGraphExecUpdate} refuses a changed one, redundant edges included).
     */
    List<Set<Integer>> recordedEdges() {
        return List.copyOf(recordedEdges);
    }

    private void node(GOp op) {
        recorded.add(op);
        recordedEdges.add(Set.copyOf(frontier));
        frontier = new HashSet<>(Set.of(recordedEdges.size() - 1));
    }

    /** What a refused capture's user writes into what its recorded pass left open. */
    static final int LEFTOVER_SEED = 17;

    /**
     * The capture was refused: what its recorded pass allocated and did not close (a temporary the refusal cut short,
     * an output) is the user's, who writes each; a pool's memory lent to one of them must have become its own.
     */
    void leaveToTheUser() {
        GpuStream s = world.stream(streamName);
        for (Buf buf : recordedAllocations) {
            if (buf.userOpen && s != null) {
                int[] data = KitKernels.pattern(buf.words, LEFTOVER_SEED);
                call("write into " + buf + ", left open by the refused capture", () -> s.write(buf.real, data));
                buf.write(data);
                world.count("buffers a refused capture left to the user");
            }
        }
    }

    /** What the recorded pass allocated and closed: the graph's temporaries. */
    List<Buf> scratch() {
        return recordedAllocations.stream().filter(b -> !b.userOpen).toList();
    }

    private Buf resolve(String name, Map<String, Buf> slots) {
        Buf slot = slots.get(name);
        if (slot != null) {
            return slot.userOpen ? slot : null;
        }
        return world.open(name);
    }

    private void run(StepOp op, GpuStream s, Map<String, Buf> slots, boolean recording, String suffix) {
        switch (op) {
            case StepOp.Launch l -> {
                Buf src = resolve(l.src(), slots);
                Buf dst = resolve(l.dst(), slots);
                if (src == null || dst == null || src == dst || l.n() > Math.min(src.words, dst.words)) {
                    return;
                }
                call(
                        "launch in the step",
                        () -> s.launch(
                                world.kernel(l.kernel()),
                                LaunchDims.linear(l.n(), BLOCK),
                                KernelArgs.of(src.real, dst.real).info(l.n())));
                if (recording) {
                    node(new World.GLaunch(l.kernel(), src, dst, l.n()));
                } else {
                    World.launch(l.kernel(), src, dst, l.n());
                }
            }
            case StepOp.Temp t ->
                slots.put(t.slot(), allocate(s, t.slot() + suffix, "temporary", t.words(), recording, false));
            case StepOp.Output o ->
                slots.put(
                        o.slot(),
                        allocate(
                                s,
                                o.slot() + suffix,
                                recording ? "output" : "warm-up output",
                                o.words(),
                                recording,
                                recording));
            case StepOp.Lazy l -> {
                Buf kept = world.lazy.get(l.slot());
                if (kept == null || !kept.userOpen) {
                    kept = allocate(s, l.slot(), "lazy output", l.words(), recording, true);
                    world.lazy.put(l.slot(), kept);
                }
                slots.put(l.slot(), kept);
            }
            case StepOp.Close c -> {
                Buf slot = slots.get(c.slot());
                if (slot != null && slot.userOpen) {
                    call("close in the step", slot.real::close);
                    slot.userOpen = false;
                }
            }
            case StepOp.Write w -> write(w, s, resolve(w.dst(), slots), recording);
            case StepOp.Read r -> read(s, resolve(r.src(), slots), recording);
            case StepOp.Copy c -> copy(s, resolve(c.src(), slots), resolve(c.dst(), slots), recording);
            case StepOp.Fork f -> fork(f, s, slots, recording, suffix);
            case StepOp.Reduce r -> reduce(r, s, resolve(r.src(), slots), resolve(r.dst(), slots), recording);
            case StepOp.GiveUp g -> {
                if (recording) {
                    eagerRefusal = new GiveUp();
                    throw eagerRefusal;
                }
            }
        }
    }

    /**
     * An allocation of the step. Without warm-ups on a backend whose window may not grow the pool, the recorded pass's
     * allocation is refused eagerly when the pool must grow: certainly when no window of this runtime ever allocated
     * that size and no graph pool takes part (the pool cannot hold a free slice of it), possibly otherwise (a closed
     * graph's slice, or a pool's intermediate, may serve it).
     */
    private Buf allocate(GpuStream s, String label, String role, int words, boolean recording, boolean latest) {
        long bytes = words * 4L;
        String of = " of " + Checker.article(role);
        boolean mayNotGrow = recording && warmups == 0 && !world.declares(Capability.MID_CAPTURE_ALLOCATION);
        boolean refused = mayNotGrow && !pooled && !world.windowSizes.contains(bytes);
        Buffer real;
        try {
            real = s.allocate(bytes);
        } catch (CaptureRejectedException rejected) {
            if (!mayNotGrow) {
                throw ModelFailure.unpredictedRefusal("allocate(" + bytes + ")" + of + " in the step", rejected);
            }
            eagerRefusal = rejected;
            throw rejected;
        } catch (RuntimeException other) {
            throw mayNotGrow
                    ? ModelFailure.wrongRefusal("allocate" + of + " in the step", CaptureRejectedException.class, other)
                    : ModelFailure.unpredictedRefusal("allocate(" + bytes + ")" + of + " in the step", other);
        }
        if (refused) {
            real.close();
            throw ModelFailure.unpredictedSuccess(
                    "allocate(" + bytes + ")" + of + " in the recorded pass",
                    "no warm-up primed "
                            + "the pool, no earlier window allocated that size, and " + world.runtime.backendName()
                            + " lacks MID_CAPTURE_ALLOCATION (DESIGN.md section 3)");
        }
        world.windowSizes.add(bytes);
        Buf buf = world.add(label, role, words, real, latest);
        if (recording) {
            recordedAllocations.add(buf);
            recordedKept += latest ? 1 : 0;
        }
        return buf;
    }

    private void write(StepOp.Write w, GpuStream s, Buf dst, boolean recording) {
        if (dst == null || w.words() > dst.words) {
            return;
        }
        int[] data = KitKernels.pattern(w.words(), w.seed());
        call("write in the step", () -> s.write(dst.real, data));
        if (!recording) {
            dst.write(data);
        } else if (world.declares(Capability.RECORDS_WRITES)) {
            node(new World.GWrite(dst, data));
        } else {
            lazyRejections.add("write into " + dst + " without RECORDS_WRITES");
        }
    }

    private void read(GpuStream s, Buf src, boolean recording) {
        if (src == null) {
            return;
        }
        if (!recording) {
            int[] got = get("read in a warm-up", () -> s.readInts(src.real));
            Checker.compare(src, got, "a read in a warm-up pass");
            return;
        }
        Throwable thrown = null;
        try {
            s.readInts(src.real);
        } catch (RuntimeException refused) {
            thrown = refused;
        }
        ModelFailure.expectRefusal(
                "readInts(" + src + ") while recording",
                CaptureRejectedException.class,
                thrown,
                "a host read while recording is rejected eagerly on every backend (DESIGN.md section 3)");
    }

    private void copy(GpuStream s, Buf src, Buf dst, boolean recording) {
        if (src == null || dst == null || src == dst || dst.words < src.words) {
            return;
        }
        call("copy in the step", () -> s.copy(src.real, dst.real));
        if (!recording) {
            World.copy(src, dst);
        } else if (world.graphKind == GraphKind.HARDWARE) {
            node(new World.GCopy(src, dst));
        } else {
            lazyRejections.add("copy " + src + " to " + dst + " into a software graph");
        }
    }

    private void reduce(StepOp.Reduce r, GpuStream s, Buf src, Buf dst, boolean recording) {
        World.Comm comm = world.comm(r.comm());
        if (comm == null
                || !comm.open
                || world.stream(comm.stream) != s
                || src == null
                || dst == null
                || dst.words < src.words) {
            return;
        }
        call("allReduce in the step", () -> comm.real.allReduce(src.real, dst.real, ReduceOp.SUM, ElementType.INT32));
        if (recording) {
            node(new World.GReduce(src, dst));
        } else {
            World.copy(src, dst);
        }
        world.count(recording ? "all-reduce recorded" : "all-reduce in a warm-up");
    }

    private void fork(StepOp.Fork f, GpuStream s, Map<String, Buf> slots, boolean recording, String suffix) {
        GpuStream other = world.stream(Action.other(streamName));
        if (other == null) {
            return;
        }
        if (recording && !world.declares(Capability.MULTI_STREAM_CAPTURE)) {
            Throwable thrown = null;
            try {
                s.record();
            } catch (RuntimeException refused) {
                thrown = refused;
            }
            ModelFailure.expectRefusal(
                    "record() while recording",
                    UnsupportedCapabilityException.class,
                    thrown,
                    world.runtime.backendName() + " lacks MULTI_STREAM_CAPTURE");
            eagerRefusal = (RuntimeException) thrown;
            throw eagerRefusal;
        }
        StreamEvent forked = get("record() for a fork", s::record);
        call("waitFor(fork)", () -> other.waitFor(forked));
        Set<Integer> main = frontier;
        frontier = new HashSet<>(main); // the waiting stream depends on what the recording stream had recorded
        for (StepOp inner : f.branch()) {
            run(inner, other, slots, recording, suffix);
        }
        StreamEvent joined = get("record() for a join", other::record);
        call("waitFor(join)", () -> s.waitFor(joined));
        main.addAll(frontier); // the join: the recording stream now depends on both
        frontier = main;
        world.count(recording ? "fork recorded" : "fork in a warm-up");
    }

    /** What a step that gives up throws: the capture cancels and rethrows it, as it does any failure of the step. */
    static final class GiveUp extends RuntimeException {
        GiveUp() {
            super("the user's step gives up in the recorded pass", null, false, false);
        }
    }

    static void call(String what, Runnable call) {
        try {
            call.run();
        } catch (ModelFailure failure) {
            throw failure;
        } catch (RuntimeException thrown) {
            throw ModelFailure.unpredictedRefusal(what, thrown);
        }
    }

    static <T> T get(String what, java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (ModelFailure failure) {
            throw failure;
        } catch (RuntimeException thrown) {
            throw ModelFailure.unpredictedRefusal(what, thrown);
        }
    }
}
