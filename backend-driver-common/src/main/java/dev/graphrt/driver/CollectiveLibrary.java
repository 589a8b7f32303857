package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.ElementType;
import dev.graphrt.api.ReduceOp;
import dev.graphrt.spi.BackendConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * NCCL's C API bound through FFM: the library every GPU cluster runs for collectives, and RCCL exports the same names
 * with the same signatures, so one binding serves cuda and hip. Each call here is one native call that throws a
 * {@link DriverException} naming the call, the code and NCCL's own text for it; {@link DriverCollectives} decides
 * when to make them.
 *
 * <p>Found like the drivers are: the backend passes its candidates (an explicit option or variable first, which is
 * then the only one tried, so a wrong path is reported rather than silently replaced), and the first that loads with
 * every required symbol is used. Required: NCCL 2.9 or later (whose {@code ncclGetVersion} encodes the version
 * as {@code major * 10000 + minor * 100 + patch}).
 *
 * <p>Signatures, checked against NCCL 2.28's {@code nccl.h}: {@code ncclComm_t} and {@code cudaStream_t} are
 * pointers, {@code size_t} is 64-bit, enums and {@code ncclResult_t} are {@code int}, and {@code ncclUniqueId} is a
 * 128-byte struct passed by value to {@code ncclCommInitRank}.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
public final class CollectiveLibrary {
    /** {@code NCCL_UNIQUE_ID_BYTES}. */
    public static final int UNIQUE_ID_BYTES = 128;

    private static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(UNIQUE_ID_BYTES, JAVA_BYTE).withName("internal"));
    private static final String[] RESULT_NAMES = {
        "ncclSuccess",
        "ncclUnhandledCudaError",
        "ncclSystemError",
        "ncclInternalError",
        "ncclInvalidArgument",
        "ncclInvalidUsage",
        "ncclRemoteError",
        "ncclInProgress"
    };

    /** The exported functions this binding calls. */
    enum Symbol implements NativeSymbol {
        ncclGetVersion(Signature.of(true, ADDRESS)),
        ncclGetUniqueId(Signature.of(true, ADDRESS)),
        ncclCommInitRank(Signature.of(true, ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT)),
        ncclCommDestroy(Signature.of(true, ADDRESS)),
        ncclGroupStart(Signature.of(true)),
        ncclGroupEnd(Signature.of(true)),
        ncclAllReduce(Signature.of(true, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)),
        ncclAllGather(Signature.of(true, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS)),
        ncclReduceScatter(Signature.of(true, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)),
        ncclBroadcast(Signature.of(true, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)),
        ncclGetErrorString(new Signature(true, FunctionDescriptor.of(ADDRESS, JAVA_INT)));

        private final Signature signature;

        Symbol(Signature signature) {
            this.signature = signature;
        }

        @Override
        public Signature signature() {
            return signature;
        }
    }

    private final String origin;
    private final int version;
    private final MethodHandle getUniqueId;
    private final MethodHandle commInitRank;
    private final MethodHandle commDestroy;
    private final MethodHandle groupStart;
    private final MethodHandle groupEnd;
    private final MethodHandle allReduce;
    private final MethodHandle allGather;
    private final MethodHandle reduceScatter;
    private final MethodHandle broadcast;
    private final MethodHandle errorString;

    private CollectiveLibrary(NativeBinder binder, String origin) throws Throwable {
        this.origin = origin;
        this.getUniqueId = binder.bind(Symbol.ncclGetUniqueId);
        this.commInitRank = binder.bind(Symbol.ncclCommInitRank);
        this.commDestroy = binder.bind(Symbol.ncclCommDestroy);
        this.groupStart = binder.bind(Symbol.ncclGroupStart);
        this.groupEnd = binder.bind(Symbol.ncclGroupEnd);
        this.allReduce = binder.bind(Symbol.ncclAllReduce);
        this.allGather = binder.bind(Symbol.ncclAllGather);
        this.reduceScatter = binder.bind(Symbol.ncclReduceScatter);
        this.broadcast = binder.bind(Symbol.ncclBroadcast);
        this.errorString = binder.bind(Symbol.ncclGetErrorString);
        MethodHandle getVersion = binder.bind(Symbol.ncclGetVersion);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check("ncclGetVersion", (int) getVersion.invokeExact(out));
            this.version = out.get(JAVA_INT, 0);
        }
    }

    /** The outcome of a search: the library, or why none could be used. */
    public record Located(Optional<CollectiveLibrary> library, String failure) {}

    /**
     * The first of {@code candidates} (sonames for the loader, or paths) that loads and binds, or why none did;
     * {@code what} names the library in the failure ("NCCL", "RCCL").
     */
    public static Located locate(String what, List<String> candidates) {
        List<String> failures = new ArrayList<>();
        for (String candidate : candidates) {
            try {
                SymbolLookup lookup = candidate.contains("/")
                        ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                        : SymbolLookup.libraryLookup(candidate, Arena.global());
                List<String> missing = NativeBinder.missing(lookup, Symbol.values());
                if (!missing.isEmpty()) {
                    failures.add(candidate + " lacks " + String.join(", ", missing) + " (" + what
                            + " 2.9 or later is needed)");
                    continue;
                }
                return new Located(
                        Optional.of(new CollectiveLibrary(new NativeBinder(lookup, candidate), candidate)), "");
            } catch (Throwable e) {
                failures.add(candidate + ": " + e.getMessage());
            }
        }
        return new Located(
                Optional.empty(),
                what + " not found; tried " + candidates
                        + (failures.isEmpty() ? "" : ": " + String.join("; ", failures)));
    }

    /**
     * The library {@code config} asks for: the backend option {@code option} ({@code off} turns collectives off, any
     * other value is the library's path), else the environment variable {@code variable}, each then the only
     * candidate; else the first of {@code defaults} that loads, which are only looked for then (a search of the disk
     * need not run when the option or the variable decides).
     */
    public static Located configured(
            String what,
            BackendConfig config,
            String option,
            String variable,
            UnaryOperator<String> environment,
            Supplier<List<String>> defaults) {
        String asked = config.option(option, "").strip();
        if (asked.equals("off")) {
            return new Located(Optional.empty(), what + " turned off by the backend option " + option);
        }
        if (!asked.isEmpty()) {
            return locate(what + " (backend option " + option + ")", List.of(asked));
        }
        String set = environment.apply(variable);
        if (set != null && !set.isBlank()) {
            return locate(what + " (environment variable " + variable + ")", List.of(set.strip()));
        }
        return locate(what, defaults.get());
    }

    /** Where the library was loaded from. */
    public String origin() {
        return origin;
    }

    /** {@code ncclGetVersion}: {@code major * 10000 + minor * 100 + patch} (NCCL 2.9 on). */
    public int version() {
        return version;
    }

    /** {@code ncclGetUniqueId}: a fresh id, 128 bytes. */
    byte[] uniqueId() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment id = arena.allocate(UNIQUE_ID);
            call("ncclGetUniqueId", () -> (int) getUniqueId.invokeExact(id));
            return id.toArray(JAVA_BYTE);
        }
    }

    /**
     * {@code ncclCommInitRank}, blocking: rank {@code rank} of {@code size} with {@code id}, on the calling thread's
     * current device. Returns the communicator handle.
     */
    MemorySegment initRank(int size, byte[] id, int rank) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment comm = arena.allocate(ADDRESS);
            MemorySegment unique = uniqueIdIn(arena, id);
            call("ncclCommInitRank", () -> (int) commInitRank.invokeExact(comm, size, unique, rank));
            return comm.get(ADDRESS, 0);
        }
    }

    /** {@code id} as the {@code ncclUniqueId} struct that {@code ncclCommInitRank} takes by value. */
    private static MemorySegment uniqueIdIn(Arena arena, byte[] id) {
        MemorySegment unique = arena.allocate(UNIQUE_ID);
        unique.copyFrom(MemorySegment.ofArray(id));
        return unique;
    }

    /**
     * The ranks {@code 0..size-1} of one process, initialised together in one NCCL group ({@code ncclGroupStart},
     * one {@code ncclCommInitRank} per rank with {@code makeCurrent} run first for its device, {@code ncclGroupEnd}),
     * as NCCL requires when one thread makes several ranks. On a failure the ranks already made are destroyed.
     */
    MemorySegment[] initRanks(byte[] id, int size, IntConsumer makeCurrent) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment comms = arena.allocate(ADDRESS, size);
            MemorySegment unique = uniqueIdIn(arena, id);
            groupStart();
            RuntimeException failure = Failures.attempt(null, () -> {
                for (int rank = 0; rank < size; rank++) {
                    makeCurrent.accept(rank);
                    MemorySegment slot = comms.asSlice(rank * ADDRESS.byteSize(), ADDRESS.byteSize());
                    int r = rank;
                    call("ncclCommInitRank", () -> (int) commInitRank.invokeExact(slot, size, unique, r));
                }
            });
            failure = Failures.attempt(failure, this::groupEnd);
            MemorySegment[] handles = new MemorySegment[size];
            for (int rank = 0; rank < size; rank++) {
                handles[rank] = comms.getAtIndex(ADDRESS, rank);
            }
            if (failure != null) {
                for (MemorySegment handle : handles) {
                    if (!handle.equals(MemorySegment.NULL)) {
                        failure = Failures.attempt(failure, () -> destroy(handle));
                    }
                }
                throw failure;
            }
            return handles;
        }
    }

    /** {@code ncclCommDestroy}: frees a communicator whose operations completed. */
    void destroy(MemorySegment comm) {
        call("ncclCommDestroy", () -> (int) commDestroy.invokeExact(comm));
    }

    void groupStart() {
        call("ncclGroupStart", () -> (int) groupStart.invokeExact());
    }

    void groupEnd() {
        call("ncclGroupEnd", () -> (int) groupEnd.invokeExact());
    }

    void allReduce(
            long send, long recv, long count, ElementType type, ReduceOp op, MemorySegment comm, MemorySegment stream) {
        call("ncclAllReduce", () -> (int) allReduce.invokeExact(
                MemorySegment.ofAddress(send),
                MemorySegment.ofAddress(recv),
                count,
                dataType(type),
                redOp(op),
                comm,
                stream));
    }

    void allGather(long send, long recv, long sendCount, ElementType type, MemorySegment comm, MemorySegment stream) {
        call("ncclAllGather", () -> (int) allGather.invokeExact(
                MemorySegment.ofAddress(send), MemorySegment.ofAddress(recv), sendCount, dataType(type), comm, stream));
    }

    void reduceScatter(
            long send,
            long recv,
            long recvCount,
            ElementType type,
            ReduceOp op,
            MemorySegment comm,
            MemorySegment stream) {
        call("ncclReduceScatter", () -> (int) reduceScatter.invokeExact(
                MemorySegment.ofAddress(send),
                MemorySegment.ofAddress(recv),
                recvCount,
                dataType(type),
                redOp(op),
                comm,
                stream));
    }

    void broadcast(
            long send, long recv, long count, ElementType type, int root, MemorySegment comm, MemorySegment stream) {
        call("ncclBroadcast", () -> (int) broadcast.invokeExact(
                MemorySegment.ofAddress(send),
                MemorySegment.ofAddress(recv),
                count,
                dataType(type),
                root,
                comm,
                stream));
    }

    /** {@code ncclDataType_t}: {@code ncclInt32} 2, {@code ncclFloat32} 7. */
    static int dataType(ElementType type) {
        return switch (type) {
            case INT32 -> 2;
            case FLOAT32 -> 7;
        };
    }

    /** {@code ncclRedOp_t}: {@code ncclSum} 0, {@code ncclProd} 1, {@code ncclMax} 2, {@code ncclMin} 3. */
    static int redOp(ReduceOp op) {
        return switch (op) {
            case SUM -> 0;
            case PRODUCT -> 1;
            case MAX -> 2;
            case MIN -> 3;
        };
    }

    /** The symbolic name of an {@code ncclResult_t}. */
    static String resultName(int code) {
        return code >= 0 && code < RESULT_NAMES.length ? RESULT_NAMES[code] : "ncclResult " + code;
    }

    /** Throws a {@link DriverException} naming {@code call} unless {@code code} is {@code ncclSuccess}. */
    void check(String call, int code) {
        if (code != 0) {
            throw new DriverException(call, code, resultName(code), describe(code));
        }
    }

    private String describe(int code) {
        try {
            MemorySegment text = (MemorySegment) errorString.invokeExact(code);
            return text.equals(MemorySegment.NULL)
                    ? origin
                    : text.reinterpret(1024).getString(0) + "; " + origin;
        } catch (Throwable e) {
            return origin;
        }
    }

    @FunctionalInterface
    private interface Call {
        int invoke() throws Throwable;
    }

    private void call(String name, Call call) {
        int code;
        try {
            code = call.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(name + " could not be called", e);
        }
        check(name, code);
    }

    @Override
    public String toString() {
        return "CollectiveLibrary[" + origin + ", " + version + "]";
    }
}
