package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The typed layer over a driver's raw handles: a call whose result code is checked and mapped to GraphRT's
 * exceptions ({@link HardwareGraphErrors}), calls that return a value through an out-parameter, and the few
 * sequences CUDA and HIP make alike (a RELAXED capture-mode exchange, listing a graph's node types).
 *
 * <p>Why helpers and not one method per call in each backend: the checking is the same everywhere, so a
 * backend's typed method becomes one line and a fix to it lands once. Hot paths (launch, async copy, event
 * record and query, graph launch) stay hand-written in the backend with a plain {@code invokeExact} and
 * {@link #check}, which allocates nothing.
 */
public final class DriverCalls {
    /** A raw call returning its result code. */
    @FunctionalInterface
    public interface Call {
        int invoke() throws Throwable;
    }

    /** A raw call that writes its answer to {@code out} and returns its result code. */
    @FunctionalInterface
    public interface OutCall {
        int invoke(MemorySegment out) throws Throwable;
    }

    private final HardwareGraphErrors errors;

    /** Checks results with {@code errors}. */
    public DriverCalls(HardwareGraphErrors errors) {
        this.errors = Objects.requireNonNull(errors, "errors");
    }

    /** The mapping of result codes. */
    public HardwareGraphErrors errors() {
        return errors;
    }

    /** Throws the exception for {@code call} failing with {@code rc}, unless it is {@code SUCCESS}. */
    public void check(String call, int rc) {
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw errors.toException(call, rc);
        }
    }

    /** Runs {@code raw} and returns its result code unchecked (probes and cleanup paths must not throw for it). */
    public static int raw(String call, Call raw) {
        try {
            return raw.invoke();
        } catch (Throwable t) {
            throw unexpected(call, t);
        }
    }

    /** Runs {@code raw} and checks its result code. */
    public void run(String call, Call raw) {
        check(call, raw(call, raw));
    }

    /** Runs {@code raw} with an {@code int} out-parameter and returns what it wrote. */
    public int intOut(String call, OutCall raw) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check(call, raw(call, () -> raw.invoke(out)));
            return out.get(JAVA_INT, 0);
        }
    }

    /** Runs {@code raw} with a 64-bit out-parameter ({@code size_t}, {@code CUdeviceptr}) and returns it. */
    public long longOut(String call, OutCall raw) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check(call, raw(call, () -> raw.invoke(out)));
            return out.get(JAVA_LONG, 0);
        }
    }

    /** Runs {@code raw} with a pointer out-parameter (a handle) and returns it. */
    public MemorySegment addressOut(String call, OutCall raw) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check(call, raw(call, () -> raw.invoke(out)));
            return out.get(ADDRESS, 0);
        }
    }

    /**
     * Like {@link #addressOut}, for an allocation: out-of-memory reports {@code bytes}, and the block comes
     * back as a segment of that size.
     */
    public MemorySegment allocationOut(String call, long bytes, OutCall raw) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = raw(call, () -> raw.invoke(out));
            if (rc != HardwareGraphErrors.SUCCESS) {
                throw errors.toException(call, rc, bytes);
            }
            return out.get(ADDRESS, 0).reinterpret(bytes);
        }
    }

    /** Whether the work before an event finished: 0 true, 600 (not ready) false, anything else throws. */
    public boolean ready(String call, int rc) {
        if (rc == HardwareGraphErrors.SUCCESS) {
            return true;
        }
        if (rc == HardwareGraphErrors.NOT_READY) {
            return false;
        }
        throw errors.toException(call, rc);
    }

    /**
     * Runs {@code action} with the calling thread's capture mode exchanged to RELAXED ({@code relaxed} in the
     * driver's numbering) through {@code exchange} ({@code cuThreadExchangeStreamCaptureMode},
     * {@code hipThreadExchangeStreamCaptureMode}), then restores it. A host allocation or module load made this
     * way does not invalidate a GLOBAL or THREAD_LOCAL capture in progress.
     */
    public <T> T withRelaxedCaptureMode(String call, MethodHandle exchange, int relaxed, Supplier<T> action) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mode = arena.allocate(JAVA_INT);
            mode.set(JAVA_INT, 0, relaxed);
            run(call, () -> (int) exchange.invokeExact(mode));
            T result;
            try {
                result = action.get();
            } catch (RuntimeException | Error primary) {
                try {
                    run(call, () -> (int) exchange.invokeExact(mode)); // mode now holds the previous one
                } catch (RuntimeException restore) {
                    primary.addSuppressed(restore);
                }
                throw primary;
            }
            run(call, () -> (int) exchange.invokeExact(mode));
            return result;
        }
    }

    /**
     * The node type of every node of {@code graph}, in the driver's order and numbering, through its
     * {@code GraphGetNodes(graph, nodes*, size_t* count)} and {@code GraphNodeGetType(node, int*)} handles.
     */
    public int[] graphNodeTypes(
            MemorySegment graph, String getNodesCall, MethodHandle getNodes, String getTypeCall, MethodHandle getType) {
        return graphNodes(graph, getNodesCall, getNodes, getTypeCall, getType).types();
    }

    /** A graph's nodes, in the driver's order (a captured stream's creation order), and their types. */
    public record GraphNodes(MemorySegment[] nodes, int[] types) {}

    /** The nodes of {@code graph} and their types, through the driver's get-nodes and node-type calls. */
    public GraphNodes graphNodes(
            MemorySegment graph, String getNodesCall, MethodHandle getNodes, String getTypeCall, MethodHandle getType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_LONG);
            count.set(JAVA_LONG, 0, 0L);
            run(getNodesCall, () -> (int) getNodes.invokeExact(graph, MemorySegment.NULL, count));
            long n = count.get(JAVA_LONG, 0);
            if (n == 0) {
                return new GraphNodes(new MemorySegment[0], new int[0]);
            }
            if (n > Integer.MAX_VALUE / 8) {
                throw new IllegalStateException("graph reports " + n + " nodes");
            }
            MemorySegment nodes = arena.allocate(ADDRESS, n);
            run(getNodesCall, () -> (int) getNodes.invokeExact(graph, nodes, count));
            int filled = (int) Math.min(n, count.get(JAVA_LONG, 0));
            MemorySegment[] handles = new MemorySegment[filled];
            int[] types = new int[filled];
            MemorySegment type = arena.allocate(JAVA_INT); // one out-parameter for every node: a capture lists them all
            for (int i = 0; i < filled; i++) {
                MemorySegment node = nodes.getAtIndex(ADDRESS, i);
                handles[i] = node;
                int rc;
                try { // per node of every capture: no lambda
                    rc = (int) getType.invokeExact(node, type);
                } catch (Throwable t) {
                    throw unexpected(getTypeCall, t);
                }
                check(getTypeCall, rc);
                types[i] = type.get(JAVA_INT, 0);
            }
            return new GraphNodes(handles, types);
        }
    }

    /** A name for the string a {@code const char*} points at, or null for NULL (at most 256 bytes read). */
    public static String cString(MemorySegment text) {
        return text.equals(MemorySegment.NULL) ? null : text.reinterpret(256).getString(0);
    }

    /** A throwable from a downcall as an unchecked exception: errors rethrown, checked ones wrapped. */
    public static RuntimeException unexpected(String call, Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(call + " downcall failed", t);
    }
}
