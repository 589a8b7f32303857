package dev.graphrt.conformance.model;

import dev.graphrt.api.GpuStream;
import dev.graphrt.api.MemoryStats;
import dev.graphrt.conformance.model.World.Buf;
import dev.graphrt.conformance.model.World.G;
import java.util.Map;

/**
 * What must hold after every action: every buffer the user can still read equals its model exactly (where the
 * model defines its words), the memory statistics are consistent as {@link MemoryStats} documents them, and the
 * handles' closed flags agree with the model. And what must hold after the sequence: nothing pinned or retained
 * once every graph is closed, nothing reserved once the runtime is closed.
 */
final class Checker {
    private Checker() {}

    /** Compares a read-back with the model's defined words. */
    static void compare(Buf buf, int[] got, String when) {
        if (got.length != buf.words) {
            throw new ModelFailure(
                    "content of " + article(buf.role),
                    when + ": " + buf + " read back " + got.length + " words, the model has " + buf.words);
        }
        for (int i = 0; i < got.length; i++) {
            if (buf.defined[i] && got[i] != buf.values[i]) {
                int differing = 0;
                for (int j = i; j < got.length; j++) {
                    if (buf.defined[j] && got[j] != buf.values[j]) {
                        differing++;
                    }
                }
                throw new ModelFailure(
                        "content of " + article(buf.role),
                        when + ": " + buf + " (" + buf.role
                                + ") differs from the model at word " + i
                                + " (read " + got[i] + ", model " + buf.values[i] + "; " + differing
                                + " word(s) differ)");
            }
        }
    }

    static String article(String noun) {
        return ("aeiou".indexOf(noun.charAt(0)) >= 0 ? "an " : "a ") + noun;
    }

    /** Reads back every open buffer, and checks the streams' capture states, the closed flags and the statistics. */
    static void afterAction(World world, GpuStream reader) {
        if (reader != null) {
            for (Buf buf : world.all) {
                if (buf.userOpen) {
                    int[] got = StepRun.get("readInts(" + buf + ") by the check", () -> reader.readInts(buf.real));
                    compare(buf, got, "the check after it");
                    world.count("buffers read back by the checks");
                }
            }
        }
        for (Map.Entry<String, GpuStream> stream : world.streams.entrySet()) {
            if (world.stream(stream.getKey()) != null
                    && stream.getValue().captureState() != dev.graphrt.api.CaptureState.NO_CAPTURE) {
                throw new ModelFailure(
                        "capture state",
                        stream.getKey() + " is in " + stream.getValue().captureState()
                                + " after the call; every exit path of a capture ends in NO_CAPTURE (DESIGN.md section 2)");
            }
        }
        for (Buf buf : world.all) {
            if (buf.real.isClosed() == buf.userOpen) {
                throw new ModelFailure(
                        "closed flag",
                        buf + ".isClosed() is " + buf.real.isClosed() + ", the model says " + !buf.userOpen);
            }
        }
        for (G graph : world.graphs.values()) {
            if (graph.real.isClosed() == graph.open) {
                throw new ModelFailure(
                        "closed flag",
                        graph.name + ".isClosed() is " + graph.real.isClosed() + ", the model says " + !graph.open);
            }
        }
        stats(world);
    }

    /** The invariants {@link MemoryStats} documents. */
    static MemoryStats stats(World world) {
        MemoryStats m = world.runtime.memoryStats();
        String seen = " (" + m + ")";
        long perGraph = 0;
        for (Map.Entry<Long, Long> entry : m.pinnedPerGraph().entrySet()) {
            if (entry.getValue() < 0) {
                throw new ModelFailure(
                        "stats: negative pin", "graph #" + entry.getKey() + " pins a negative count" + seen);
            }
            perGraph += entry.getValue();
        }
        if (m.reservedBytes() < 0
                || m.inUseBytes() < 0
                || m.persistentFreeBytes() < 0
                || m.pinnedBytes() < 0
                || m.retainedByGraphsBytes() < 0
                || m.sharedPerPool().values().stream().anyMatch(v -> v < 0)) {
            throw new ModelFailure("stats: negative", "a byte count is negative" + seen);
        }
        if (m.inUseBytes() > m.reservedBytes()) {
            throw new ModelFailure("stats: inUse > reserved", "inUseBytes exceeds reservedBytes" + seen);
        }
        if (m.inUseBytes() + m.persistentFreeBytes() > m.reservedBytes()) {
            throw new ModelFailure(
                    "stats: inUse + persistentFree > reserved",
                    "in-use and free persistent bytes " + "together exceed reservedBytes" + seen);
        }
        if (m.pinnedBytes() != perGraph) {
            throw new ModelFailure(
                    "stats: pinned != sum(pinnedPerGraph)",
                    "pinnedBytes is not the sum of " + "pinnedPerGraph (" + perGraph + ")" + seen);
        }
        if (m.pinnedBytes() > m.inUseBytes()) {
            throw new ModelFailure("stats: pinned > inUse", "pinned slices are handed out to graphs, so in use" + seen);
        }
        for (G graph : world.graphs.values()) {
            if (graph.open) {
                long pinned = graph.real.info().pinnedBytes();
                long listed = m.pinnedPerGraph().getOrDefault(graph.real.id(), 0L);
                if (listed < pinned) {
                    throw new ModelFailure(
                            "stats: pinnedPerGraph < info().pinnedBytes()",
                            graph.name + " (graph #"
                                    + graph.real.id() + ") pins " + pinned + " bytes by its info, " + listed + " in "
                                    + "pinnedPerGraph" + seen);
                }
            }
        }
        return m;
    }

    /** Once every graph, cache and pool is closed and every stream synchronised: nothing pinned or retained. */
    static void nothingHeld(World world) {
        MemoryStats m = stats(world);
        if (m.pinnedBytes() != 0 || !m.pinnedPerGraph().isEmpty()) {
            throw new ModelFailure(
                    "leak: pinned after every graph closed",
                    "every graph is closed and every stream " + "synchronised, yet memory is pinned (" + m + ")");
        }
        if (m.retainedByGraphsBytes() != 0) {
            throw new ModelFailure(
                    "leak: retained after every graph closed",
                    "every graph is closed, yet graphs " + "retain buffers (" + m + ")");
        }
        if (!m.sharedPerPool().isEmpty()) {
            throw new ModelFailure(
                    "leak: pool memory after every graph closed",
                    "every graph and pool is closed, " + "yet pools hold shared memory (" + m + ")");
        }
        if (world.lean && m.inUseBytes() != 0) { // no info cache outside captures: nothing may be handed out
            throw new ModelFailure(
                    "leak: in use after every handle closed",
                    "every buffer, graph, pool and cache of "
                            + "a lean runtime (no info cache outside captures) is closed and every stream synchronised, yet "
                            + m.inUseBytes() + " bytes are in use: an info block or a buffer nothing can free (" + m
                            + ")");
        }
    }

    /** After the runtime closed: every handle reads closed, and no byte is reserved, in use or pinned. */
    static void nothingLeft(World world) {
        for (Buf buf : world.all) {
            if (!buf.real.isClosed()) {
                throw new ModelFailure("leak: open handle after close", buf + " is not closed after the runtime was");
            }
        }
        for (G graph : world.graphs.values()) {
            if (!graph.real.isClosed()) {
                throw new ModelFailure(
                        "leak: open handle after close", graph.name + " is not closed after the " + "runtime was");
            }
        }
        for (World.P pool : world.pools.values()) {
            if (!pool.real.isClosed()) {
                throw new ModelFailure(
                        "leak: open handle after close", pool.name + " is not closed after the " + "runtime was");
            }
        }
        MemoryStats m = world.runtime.memoryStats();
        if (m.reservedBytes() != 0
                || m.inUseBytes() != 0
                || m.pinnedBytes() != 0
                || m.persistentFreeBytes() != 0
                || m.retainedByGraphsBytes() != 0
                || !m.pinnedPerGraph().isEmpty()
                || !m.sharedPerPool().isEmpty()) {
            throw new ModelFailure(
                    "leak: memory after close",
                    "the runtime is closed, which returns every byte to " + "the device, yet " + m);
        }
    }
}
