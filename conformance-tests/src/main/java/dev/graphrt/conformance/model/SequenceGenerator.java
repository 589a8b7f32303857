package dev.graphrt.conformance.model;

import dev.graphrt.api.Capability;
import dev.graphrt.conformance.model.StepOp.Kern;
import dev.graphrt.conformance.model.StepOp.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Generates a sequence of 20 to 40 actions from a seed. It keeps a rough picture of what exists (buffers and their
 * sizes, graphs and their steps, pools, caches, streams) only to choose plausible names; what really exists when an
 * action runs is the runner's business (it skips an action whose names are gone). Undeclared capabilities are
 * exercised rarely, where the model predicts their refusal.
 */
final class SequenceGenerator {
    /**
     * Buffer sizes in words: a small set, so rebinds and pools find equal sizes; N's ragged tail included; none as
     * small as an info block's slice (256 bytes at most), which the capture pool keeps free as headroom.
     */
    private static final int[] WORDS = {72, 293, 1061};

    private static final String[] KEYS = {"k0", "k1", "k2"};

    private final SplittableRandom random;
    private final Set<Capability> capabilities;
    private final boolean twoStreams;
    private boolean lean; // a lean runtime: its churns run in flight, where its small reserve bounds them
    private final Map<String, Integer> buffers = new LinkedHashMap<>();
    private final Map<String, Step> graphs = new LinkedHashMap<>();
    private final Map<String, String> graphStreams = new HashMap<>();
    private final Map<String, String> pools = new LinkedHashMap<>();
    private final Map<String, String> caches = new LinkedHashMap<>();
    private final Map<String, Step> cacheSteps = new HashMap<>();
    private final Map<String, Integer> lazies = new LinkedHashMap<>();
    private final List<String> streams = new ArrayList<>(List.of("s0"));
    /** Communicators (name to stream), closed ones included: an all-reduce on a closed one is refused. */
    private final Map<String, String> comms = new LinkedHashMap<>();

    private final Set<String> closedComms = new java.util.HashSet<>();
    private final Map<Character, Integer> counters = new HashMap<>();

    private SequenceGenerator(long seed, Set<Capability> capabilities) {
        this.random = new SplittableRandom(seed);
        this.capabilities = capabilities;
        this.twoStreams = random.nextInt(2) == 0;
        if (twoStreams) {
            streams.add("s1");
        }
    }

    /**
     * The sequence of {@code seed}; checked mode for about one in four, a lean runtime for about one in four (drawn
     * apart, so that it changes no other choice of the sequence).
     */
    static Sequence generate(long seed, Set<Capability> capabilities) {
        SequenceGenerator generator = new SequenceGenerator(seed, capabilities);
        boolean checked = generator.random.nextInt(4) == 0;
        generator.lean = new SplittableRandom(~seed).nextInt(4) == 0;
        return new Sequence(seed, checked, generator.lean, generator.twoStreams, generator.actions());
    }

    private List<Action> actions() {
        List<Action> actions = new ArrayList<>();
        int length = 20 + random.nextInt(21);
        for (int i = 0, inputs = 2 + random.nextInt(3); i < inputs; i++) {
            actions.add(upload("s0"));
        }
        while (actions.size() < length) {
            Action next = next();
            if (next != null) {
                actions.add(next);
            }
        }
        return actions;
    }

    private Action next() {
        String s = streams.size() > 1 && random.nextInt(10) < 3 ? streams.get(1) : streams.get(0);
        if (random.nextInt(100) < (capabilities.contains(Capability.COLLECTIVES) ? 8 : 1)) {
            return collective(s);
        }
        int roll = random.nextInt(100);
        if (roll < 9) {
            return upload(s);
        } else if (roll < 12) {
            String b = name('b');
            buffers.put(b, words());
            return new Action.Allocate(s, b, buffers.get(b));
        } else if (roll < 17) {
            String b = any(null);
            return b == null ? null : new Action.Write(s, b, 1 + random.nextInt(buffers.get(b)), seed());
        } else if (roll < 26) {
            String[] pair = pair(null);
            return pair == null ? null : new Action.Launch(s, kern(), pair[0], pair[1], n(pair[0], pair[1], null));
        } else if (roll < 29) {
            String[] pair = pair(null);
            return pair == null || buffers.get(pair[1]) < buffers.get(pair[0])
                    ? null
                    : new Action.Copy(s, pair[0], pair[1]);
        } else if (roll < 31) {
            return streams.size() < 2 ? null : new Action.Event(s, Action.other(s));
        } else if (roll < 47) {
            return capture(s);
        } else if (roll < 50) {
            if (pools.size() >= 2) {
                return null;
            }
            String p = name('p');
            pools.put(p, null);
            return new Action.OpenPool(p);
        } else if (roll < 52) {
            if (caches.size() >= 2) {
                return null;
            }
            String c = name('c');
            caches.put(c, s);
            return new Action.OpenCache(s, c, 1 + random.nextInt(3));
        } else if (roll < 62) {
            return runCache();
        } else if (roll < 73) {
            String g = pick(graphs.keySet());
            return g == null
                    ? null
                    : random.nextInt(streams.size() > 1 ? 3 : 6) != 0
                            ? new Action.Replay(graphStreams.get(g), g)
                            : replayAndClose(g);
        } else if (roll < 78) {
            return update();
        } else if (roll < 82) {
            return rebind();
        } else if (roll < 83) {
            int cycles = (24 + random.nextInt(17)) / (lean ? 2 : 1); // in flight (lean): half as many, each held
            return new Action.Churn(s, cycles, (3L << 19) + 4L * random.nextInt(1024), lean);
        } else if (roll < 84) {
            return new Action.Trim();
        } else if (roll < 91) {
            String b = any(null);
            if (b == null) {
                return null;
            }
            buffers.remove(b);
            lazies.remove(b);
            return new Action.Close(Action.Kind.BUFFER, b);
        } else if (roll < 95) {
            String g = pick(graphs.keySet());
            if (g == null) {
                return null;
            }
            graphs.remove(g);
            return new Action.Close(Action.Kind.GRAPH, g);
        } else if (roll < 97) {
            String p = pick(pools.keySet());
            return p == null ? null : new Action.Close(Action.Kind.POOL, p);
        } else if (roll < 99) {
            String c = pick(caches.keySet());
            return c == null ? null : new Action.Close(Action.Kind.CACHE, c);
        }
        if (streams.size() < 2) {
            return null; // the last stream stays open: nothing could run after it
        }
        String closing = streams.get(random.nextInt(4) == 0 ? 0 : 1); // ends its graphs and caches; s1 mostly
        streams.remove(closing);
        comms.values().removeIf(closing::equals);
        graphs.keySet().removeIf(g -> closing.equals(graphStreams.get(g)));
        caches.values().removeIf(closing::equals);
        return new Action.Close(Action.Kind.STREAM, closing);
    }

    /**
     * A communicator of one rank on {@code s} (the first, or now and then another), an all-reduce on one (in place now
     * and then; into a smaller buffer or on a closed communicator it is refused), or a communicator closed.
     */
    private Action collective(String s) {
        String c =
                pick(comms.keySet().stream().filter(m -> comms.get(m).equals(s)).toList());
        if (c == null || random.nextInt(8) == 0) {
            String m = name('m');
            comms.put(m, s);
            return new Action.Join(s, m);
        }
        if (random.nextInt(8) == 0 && closedComms.add(c)) {
            return new Action.Close(Action.Kind.COMMUNICATOR, c);
        }
        String[] pair = pair(null);
        return pair == null ? null : new Action.AllReduce(s, c, pair[0], random.nextInt(5) == 0 ? pair[0] : pair[1]);
    }

    /** An open communicator of {@code stream}, or null (none for a cache's step: {@code stream} null). */
    private String openComm(String stream) {
        return stream == null
                ? null
                : pick(comms.keySet().stream()
                        .filter(m -> comms.get(m).equals(stream) && !closedComms.contains(m))
                        .toList());
    }

    private Action upload(String s) {
        String b = name('b');
        buffers.put(b, words());
        return new Action.Upload(s, b, buffers.get(b), seed());
    }

    private Action capture(String s) {
        String pool = random.nextInt(2) == 0 ? pick(pools.keySet()) : null;
        if (pool != null && pools.get(pool) != null) { // mostly the pool's own stream; now and then the other: refused
            s = random.nextInt(5) != 0 || streams.size() < 2 ? pools.get(pool) : Action.other(pools.get(pool));
        }
        if (pool != null) {
            pools.putIfAbsent(pool, s);
        }
        String g = name('g');
        Step step = step(false, pool != null, s);
        graphs.put(g, step);
        graphStreams.put(g, s);
        return new Action.Capture(s, g, warmups(), pool, step);
    }

    private Action runCache() {
        String c = pick(caches.keySet());
        if (c == null) {
            return null;
        }
        String key = KEYS[random.nextInt(KEYS.length)];
        Step step = cacheSteps.computeIfAbsent(c + key, k -> step(true, true, null));
        return new Action.RunCache(caches.get(c), c, key, step);
    }

    private Action replayAndClose(String g) {
        String written = null;
        for (StepOp op : graphs.remove(g).ops()) { // a buffer made outside the steps that the replay writes, mostly
            if (op instanceof StepOp.Launch l
                    && l.dst().startsWith("b")
                    && buffers.containsKey(l.dst())
                    && (written == null || random.nextBoolean())) {
                written = l.dst();
            }
        }
        String b = name('b');
        int words = written == null ? words() : buffers.remove(written);
        buffers.put(b, words);
        String on = graphStreams.get(g);
        return new Action.ReplayAndClose(on, g, written, streams.size() > 1 ? Action.other(on) : on, b, words, seed());
    }

    private Action update() {
        String g = pick(graphs.keySet());
        if (g == null) {
            return null;
        }
        Step old = graphs.get(g);
        List<StepOp> ops = new ArrayList<>();
        for (StepOp op : old.ops()) {
            switch (op) {
                case StepOp.Write w -> {} // an update records launches; writes and copies stay out of it
                case StepOp.Copy c -> {}
                case StepOp.Read r -> {}
                case StepOp.Reduce r -> {}
                case StepOp.Launch l ->
                    ops.add(
                            random.nextInt(3) == 0
                                    ? new StepOp.Launch(l.kernel(), l.src(), l.dst(), 1 + random.nextInt(l.n()))
                                    : l);
                default -> ops.add(op);
            }
        }
        if (random.nextInt(3) == 0) {
            String[] pair = pair(null);
            if (pair != null) {
                ops.add(new StepOp.Launch(kern(), pair[0], pair[1], n(pair[0], pair[1], null))); // another shape
            }
        }
        return new Action.Update(graphStreams.get(g), g, warmups(), new Step(ops));
    }

    private Action rebind() {
        String g = pick(graphs.keySet());
        if (g == null) {
            return null;
        }
        List<String> used = new ArrayList<>();
        for (StepOp op : graphs.get(g).ops()) {
            if (op instanceof StepOp.Launch l) {
                for (String name : List.of(l.src(), l.dst())) {
                    if (buffers.containsKey(name)) {
                        used.add(name);
                    }
                }
            }
        }
        String from = used.isEmpty() ? any(null) : used.get(random.nextInt(used.size()));
        if (from == null) {
            return null;
        }
        List<String> same = buffers.keySet().stream()
                .filter(b -> !b.equals(from) && buffers.get(b).equals(buffers.get(from)))
                .toList();
        return same.isEmpty()
                ? null
                : new Action.Rebind(graphStreams.get(g), g, from, same.get(random.nextInt(same.size())));
    }

    /**
     * A step of 1 to 5 parts: a temporary written and read then closed, an output, a lazy output (mostly, for a
     * cache), a launch over existing buffers, now and then a write, a read, a copy, an all-reduce of a communicator of
     * {@code stream} (none in a cache's step), a fork to the other stream, or
     * (where no fork is made) the user giving up in the recorded pass; a pooled step (a cache's) gives up after its
     * parts now and then, all its temporaries open.
     */
    private Step step(boolean forCache, boolean pooled, String stream) {
        List<StepOp> ops = new ArrayList<>();
        Map<String, Integer> local = new LinkedHashMap<>();
        List<String> temps = new ArrayList<>();
        for (int part = 0, parts = 1 + random.nextInt(5); part < parts; part++) {
            int roll = random.nextInt(100);
            if (roll < 25) {
                int words = pooled && random.nextBoolean() ? WORDS[0] : words(); // a pool's graphs share one size
                temps.add(produce(ops, local, new StepOp.Temp(name('t'), words)));
            } else if (roll < (forCache ? 35 : 50)) {
                String o = produce(ops, local, new StepOp.Output(name('o'), words()));
                buffers.put(o, local.get(o));
            } else if (roll < 65) {
                String l = !lazies.isEmpty() && random.nextBoolean() ? pick(lazies.keySet()) : name('l');
                lazies.putIfAbsent(l, words());
                produce(ops, local, new StepOp.Lazy(l, lazies.get(l)));
                buffers.put(l, lazies.get(l));
            } else if (roll < 85) {
                String[] pair = pair(local);
                if (pair != null) {
                    ops.add(new StepOp.Launch(kern(), pair[0], pair[1], n(pair[0], pair[1], local)));
                }
            } else if (roll < 89) {
                String b = any(local);
                if (b != null) {
                    ops.add(new StepOp.Write(b, 1 + random.nextInt(size(b, local)), seed()));
                }
            } else if (roll < 93) {
                java.util.Optional.ofNullable(any(local)).map(StepOp.Read::new).ifPresent(ops::add);
            } else if (roll < 95) {
                String[] pair = pair(local);
                if (pair != null && size(pair[1], local) >= size(pair[0], local)) {
                    ops.add(new StepOp.Copy(pair[0], pair[1]));
                }
            } else if (roll < 97 && openComm(stream) != null) {
                String[] pair = pair(local);
                if (pair != null && size(pair[1], local) >= size(pair[0], local)) {
                    ops.add(new StepOp.Reduce(openComm(stream), pair[0], pair[1]));
                }
            } else if (streams.size() > 1
                    && (capabilities.contains(Capability.MULTI_STREAM_CAPTURE) || random.nextInt(4) == 0)) {
                ops.add(fork(local));
            } else if (random.nextInt(2) == 0) {
                ops.add(new StepOp.GiveUp());
            }
        }
        if (pooled && random.nextInt(4) == 0) { // its temporaries left open where a pool may have lent them memory
            ops.add(new StepOp.GiveUp());
        }
        for (String t : temps) {
            ops.add(new StepOp.Close(t));
        }
        return new Step(ops);
    }

    /** The branch of a fork: an output or a temporary of the other stream, or a launch over existing buffers. */
    private StepOp fork(Map<String, Integer> local) {
        List<StepOp> branch = new ArrayList<>();
        int roll = random.nextInt(3);
        if (roll == 0) {
            String o = produce(branch, local, new StepOp.Output(name('o'), words()));
            buffers.put(o, local.get(o));
        } else if (roll == 1) {
            String t = produce(branch, local, new StepOp.Temp(name('t'), words()));
            String[] pair = pair(local);
            if (pair != null && !pair[1].equals(t)) {
                branch.add(new StepOp.Launch(kern(), t, pair[1], n(t, pair[1], local)));
            }
            branch.add(new StepOp.Close(t));
            local.remove(t);
        } else {
            String[] pair = pair(local);
            if (pair != null) {
                branch.add(new StepOp.Launch(kern(), pair[0], pair[1], n(pair[0], pair[1], local)));
            }
        }
        return new StepOp.Fork(name('f'), branch);
    }

    /** Adds an allocation and a launch that fills it from an existing buffer; returns the slot. */
    private String produce(List<StepOp> ops, Map<String, Integer> local, StepOp.Allocation allocation) {
        ops.add(allocation);
        String src = any(local);
        local.put(allocation.slot(), allocation.words());
        if (src != null && !src.equals(allocation.slot())) {
            ops.add(new StepOp.Launch(kern(), src, allocation.slot(), n(src, allocation.slot(), local)));
        }
        return allocation.slot();
    }

    private String[] pair(Map<String, Integer> local) {
        String src = any(local);
        String dst = any(local);
        return src == null || dst == null || src.equals(dst) ? null : new String[] {src, dst};
    }

    private String any(Map<String, Integer> local) {
        List<String> names = new ArrayList<>(buffers.keySet());
        if (local != null) {
            names.addAll(local.keySet());
            names.addAll(local.keySet()); // a step's own buffers are used more often
        }
        return names.isEmpty() ? null : names.get(random.nextInt(names.size()));
    }

    private int size(String name, Map<String, Integer> local) {
        return local != null && local.containsKey(name) ? local.get(name) : buffers.get(name);
    }

    /** Mostly the whole common length, sometimes a shorter prefix. */
    private int n(String a, String b, Map<String, Integer> local) {
        int common = Math.min(size(a, local), size(b, local));
        return random.nextInt(3) == 0 ? 1 + random.nextInt(common) : common;
    }

    private <T> T pick(java.util.Collection<T> from) {
        List<T> list = new ArrayList<>(from);
        return list.isEmpty() ? null : list.get(random.nextInt(list.size()));
    }

    private int words() {
        return WORDS[random.nextInt(WORDS.length)];
    }

    private static final Kern[] KERNS = Kern.values();

    private Kern kern() {
        return KERNS[random.nextInt(KERNS.length)];
    }

    /** 0, 1 or 2 warm-ups: 0 a quarter of the time. */
    private int warmups() {
        int roll = random.nextInt(4);
        return roll == 0 ? 0 : roll == 3 ? 2 : 1;
    }

    private int seed() {
        return random.nextInt(1000);
    }

    private String name(char prefix) {
        return prefix + String.valueOf(counters.merge(prefix, 1, Integer::sum) - 1);
    }
}
