package dev.graphrt.conformance.model;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.Communicator;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphCache;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphPool;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.RuntimeObserver;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.conformance.model.StepOp.Kern;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One sequence's world: the real objects of the runtime under test, each paired with its plain-Java model. A
 * buffer's model is its int words and which of them are defined (written from defined data); a graph's model is its
 * recorded list of operations over model buffers, which a replay applies to their current contents.
 */
final class World {

    /** A buffer and its model. {@code userOpen}: the user's handle is open (closed ones live on in graphs). */
    static final class Buf {
        final String name;
        /** What made it: a buffer, an output (of a warm-up or of the recorded pass), a lazy output, a temporary. */
        final String role;

        final int words;
        final Buffer real;
        final int[] values;
        final boolean[] defined;
        boolean userOpen = true;

        Buf(String name, String role, int words, Buffer real) {
            this.name = name;
            this.role = role;
            this.words = words;
            this.real = real;
            this.values = new int[words];
            this.defined = new boolean[words];
        }

        void write(int[] data) {
            System.arraycopy(data, 0, values, 0, data.length);
            Arrays.fill(defined, 0, data.length, true);
        }

        void undefine() {
            Arrays.fill(defined, false);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** One recorded operation of a graph's model. */
    sealed interface GOp {
        void apply();
    }

    /** {@code dst[i] = kernel(src[i])} for {@code i < n}; a word is defined when its source word was. */
    record GLaunch(Kern kernel, Buf src, Buf dst, int n) implements GOp {
        @Override
        public void apply() {
            launch(kernel, src, dst, n);
        }
    }

    record GWrite(Buf dst, int[] data) implements GOp {
        @Override
        public void apply() {
            dst.write(data);
        }
    }

    record GCopy(Buf src, Buf dst) implements GOp {
        @Override
        public void apply() {
            copy(src, dst);
        }
    }

    /** A recorded all-reduce of one rank: a copy of {@code src} into {@code dst}'s first words. */
    record GReduce(Buf src, Buf dst) implements GOp {
        @Override
        public void apply() {
            copy(src, dst);
        }

        boolean touches(Buf buf) {
            return src == buf || dst == buf;
        }
    }

    /** A communicator of one rank and its stream; {@code open}: its user has not closed it. */
    static final class Comm {
        final String name;
        final String stream;
        final Communicator real;
        boolean open = true;

        Comm(String name, String stream, Communicator real) {
            this.name = name;
            this.stream = stream;
            this.real = real;
        }
    }

    /** A graph and its model. A cache's graphs have no real handle the user sees ({@code real} is null). */
    static final class G {
        final String name;
        final String stream;
        Graph real;
        List<GOp> ops;
        /** Temporaries the step closed: their contents do not survive a replay (a pool may share them). */
        List<Buf> scratch;

        boolean open = true;

        /** Per node of the recording, the nodes it depends on (see {@link StepRun#recordedEdges}). */
        List<Set<Integer>> edges;

        /** The graph the recorded pass of {@code run} made. */
        G(String name, String stream, Graph real, StepRun run) {
            this.name = name;
            this.stream = stream;
            this.real = real;
            adopt(run);
        }

        /** An applied update: the graph is now what the recorded pass of {@code run} recorded. */
        void adopt(StepRun run) {
            this.ops = List.copyOf(run.recorded());
            this.edges = run.recordedEdges();
            this.scratch = List.copyOf(run.scratch());
        }

        void replay() {
            scratch.forEach(Buf::undefine);
            ops.forEach(GOp::apply);
        }

        List<Kern> shape() {
            return shape(ops);
        }

        static List<Kern> shape(List<GOp> ops) {
            List<Kern> kernels = new ArrayList<>();
            for (GOp op : ops) {
                if (op instanceof GLaunch launch) {
                    kernels.add(launch.kernel());
                }
            }
            return kernels;
        }
    }

    static final class P {
        final String name;
        final GraphPool real;
        /** The stream its first capture bound it to, or null. */
        String boundStream;

        boolean open = true;

        P(String name, GraphPool real) {
            this.name = name;
            this.real = real;
        }
    }

    static final class C {
        final String name;
        final String stream;
        final GraphCache<String> real;
        final int maxGraphs;
        /** Key to graph, least recently used first. */
        final LinkedHashMap<String, G> graphs = new LinkedHashMap<>(8, 0.75f, true);

        boolean open = true;

        C(String name, String stream, GraphCache<String> real, int maxGraphs) {
            this.name = name;
            this.stream = stream;
            this.real = real;
            this.maxGraphs = maxGraphs;
        }
    }

    /** A lean runtime's pool reserve: small, so that memory the pools keep beyond it shows within a churn. */
    static final long LEAN_RESERVE = 2L << 20;
    /**
     * What a lean runtime is opened with ({@code RuntimeOptions.defaults()} reads them): the small reserve, and no
     * info cache outside captures, so that once everything is closed, synchronised and trimmed nothing is in use.
     */
    static final Map<String, String> LEAN_PROPERTIES = new java.util.TreeMap<>(
            Map.of("graphrt.poolReserveBytes", String.valueOf(LEAN_RESERVE), "graphrt.metadataCacheEntries", "0"));

    final GraphRuntime runtime;
    final Set<Capability> capabilities;
    final GraphKind graphKind;
    final boolean checked;
    final boolean lean;
    /** Whether a failure is one the harness injected on purpose (a release it made fail): accepted where reported. */
    private final Predicate<Throwable> injected;
    /** Growths of the capture pool for a buffer (not an info block): what a recorded pass may not need. */
    final AtomicInteger captureGrowths = new AtomicInteger();
    /** Bytes the dynamic pool reserved for new pages (requests up to its largest pooled size). */
    final AtomicLong pageGrowthBytes = new AtomicLong();

    final Kernel addOne;
    final Kernel mulTwo;
    final Kernel dependentAddOne;
    final Map<String, GpuStream> streams = new LinkedHashMap<>();
    /** Name to the latest buffer of that name (an output slot names the last pass's). */
    final Map<String, Buf> buffers = new HashMap<>();
    /** Every buffer made, in order: what the checks read and the teardown closes. */
    final List<Buf> all = new ArrayList<>();

    final Map<String, G> graphs = new LinkedHashMap<>();
    final Map<String, P> pools = new LinkedHashMap<>();
    final Map<String, C> caches = new LinkedHashMap<>();
    final Map<String, Comm> comms = new LinkedHashMap<>();
    /** The user's map of lazily allocated outputs ({@code outputs.computeIfAbsent}). */
    final Map<String, Buf> lazy = new HashMap<>();
    /** Byte sizes some capture window allocated: the persistent pool may hold a free slice of each. */
    final Set<Long> windowSizes = new java.util.HashSet<>();
    /** Streams closed by an action. */
    final Set<String> closedStreams = new java.util.HashSet<>();

    private final Map<String, Integer> uses = new HashMap<>();
    /** What the sequences exercised, by outcome: a report of the model's coverage (null: not counted). */
    private final Map<String, Integer> coverage;

    World(GraphRuntime runtime, Sequence sequence, Predicate<Throwable> injected, Map<String, Integer> coverage) {
        this.runtime = runtime;
        this.coverage = coverage;
        this.capabilities = runtime.capabilities();
        this.graphKind = runtime.graphKind();
        this.checked = sequence.checked();
        this.lean = sequence.lean();
        this.injected = injected;
        this.addOne = runtime.compile(KitKernels.ADD_ONE);
        this.mulTwo = runtime.compile(KitKernels.MUL_TWO);
        this.dependentAddOne = runtime.compile(KitKernels.DEPENDENT_ADD_ONE);
        long pooled = RuntimeOptions.defaults().maxPooledBytes();
        runtime.observe(new RuntimeObserver() {
            @Override
            public void poolGrew(String pool, long requestedBytes, long reservedBytes) {
                if ("persistent".equals(pool) && requestedBytes > INFO_SLICE) {
                    captureGrowths.incrementAndGet();
                } else if ("dynamic".equals(pool) && requestedBytes <= pooled) {
                    pageGrowthBytes.addAndGet(reservedBytes);
                }
            }
        });
    }

    /** The largest info block's slice (the model's info blocks are one word); every buffer of the model is larger. */
    static final long INFO_SLICE = 256;

    /**
     * A call that reports the stream's deferred releases (synchronize, a close): a failure the harness injected is
     * accepted (counted), any other fails the model.
     */
    void reporting(String what, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException thrown) {
            if (!injected.test(thrown)) {
                throw ModelFailure.unpredictedRefusal(what, thrown);
            }
            count("injected failure reported by " + what.replaceAll(" of .*", ""));
        }
    }

    void count(String what) {
        if (coverage != null) {
            coverage.merge(what, 1, Integer::sum);
        }
    }

    boolean declares(Capability capability) {
        return capabilities.contains(capability);
    }

    Kernel kernel(Kern kern) {
        return switch (kern) {
            case ADD_ONE -> addOne;
            case MUL_TWO -> mulTwo;
            case DEPENDENT_ADD_ONE -> dependentAddOne;
        };
    }

    /** The open stream of that name, or null. */
    GpuStream stream(String name) {
        return closedStreams.contains(name) ? null : streams.get(name);
    }

    /** The communicator of that name whose stream is open (itself perhaps closed), or null. */
    Comm comm(String name) {
        Comm comm = comms.get(name);
        return comm != null && stream(comm.stream) != null ? comm : null;
    }

    /** The buffer of that name whose user handle is open, or null. */
    Buf open(String name) {
        Buf buf = buffers.get(name);
        return buf != null && buf.userOpen ? buf : null;
    }

    /** The open graph of that name on an open stream, or null. */
    G graph(String name) {
        G graph = graphs.get(name);
        return graph != null && graph.open && stream(graph.stream) != null ? graph : null;
    }

    /**
     * Registers a new buffer under {@code name} (the latest of that name); a name made again (a cache's step run
     * twice, an output of each pass) gets a distinct label for messages.
     */
    Buf add(String name, String role, int words, Buffer real, boolean latest) {
        int count = uses.merge(name, 1, Integer::sum);
        Buf buf = new Buf(count == 1 ? name : name + "'" + (count - 1), role, words, real);
        all.add(buf);
        if (latest) {
            buffers.put(name, buf);
        }
        return buf;
    }

    /** Closes every graph recorded on {@code stream} (a stream's close releases its graphs). */
    void streamClosed(String stream) {
        closedStreams.add(stream);
        graphs.values().stream().filter(g -> g.stream.equals(stream)).forEach(g -> g.open = false);
        for (C cache : caches.values()) {
            if (cache.stream.equals(stream)) {
                cache.graphs.values().forEach(g -> g.open = false);
            }
        }
    }

    static void launch(Kern kernel, Buf src, Buf dst, int n) {
        int[] result = kernel.apply(Arrays.copyOf(src.values, n));
        System.arraycopy(result, 0, dst.values, 0, n);
        System.arraycopy(src.defined, 0, dst.defined, 0, n);
    }

    static void copy(Buf src, Buf dst) {
        System.arraycopy(src.values, 0, dst.values, 0, src.words);
        System.arraycopy(src.defined, 0, dst.defined, 0, src.words);
    }
}
