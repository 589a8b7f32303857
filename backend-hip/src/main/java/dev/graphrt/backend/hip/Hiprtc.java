package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * hiprtc through FFM: HIP C source in, a loadable code object and the compiler's log out. Its layouts and
 * constants live here, as {@link HipNative} holds the runtime's. Signatures follow {@code hiprtc.h} (ROCm
 * 5.2.3): {@code hiprtcProgram} is a pointer, {@code hiprtcResult} an int, sizes are {@code size_t}. In ROCm
 * 5.x these functions are exported by {@code libamdhip64} itself; ROCm 6 moved them to {@code libhiprtc}
 * ({@link HiprtcLocator} finds either).
 *
 * <p>No architecture option is passed: hiprtc then compiles for the calling thread's current device (AMD's
 * {@code findIsa}), which the compiler made current first. Instance handles rather than {@code static final}:
 * the library may be a separate, configurable one and compilation is rare (the core caches kernels).
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class Hiprtc {
    /** {@code HIPRTC_SUCCESS}. */
    static final int SUCCESS = 0;
    /** {@code HIPRTC_ERROR_COMPILATION}: the source did not compile; the log says why. */
    static final int ERROR_COMPILATION = 6;

    private final String origin;
    private final MethodHandle version;
    private final MethodHandle getErrorString;
    private final MethodHandle createProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle getCodeSize;
    private final MethodHandle getCode;
    private final MethodHandle getProgramLogSize;
    private final MethodHandle getProgramLog;

    /**
     * The functions bound, named as exported, with their C signatures from {@code hiprtc.h}; every one must be
     * present for a library to count as hiprtc.
     */
    static final Map<String, FunctionDescriptor> SIGNATURES = signatures();

    /** The symbols a library must export to be bound. */
    static final List<String> SYMBOLS = List.copyOf(SIGNATURES.keySet());

    private static Map<String, FunctionDescriptor> signatures() {
        Map<String, FunctionDescriptor> map = new LinkedHashMap<>();
        map.put("hiprtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));      // (int* major, int* minor)
        map.put("hiprtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));         // const char*(hiprtcResult)
        map.put("hiprtcCreateProgram", FunctionDescriptor.of(JAVA_INT,                     // (hiprtcProgram*, src, name,
                ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));                      //  int n, headers, names)
        map.put("hiprtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));         // (hiprtcProgram*)
        map.put("hiprtcCompileProgram", FunctionDescriptor.of(JAVA_INT,                    // (prog, int n,
                ADDRESS, JAVA_INT, ADDRESS));                                                 //  const char** options)
        map.put("hiprtcGetCodeSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));   // (prog, size_t*)
        map.put("hiprtcGetCode", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));       // (prog, char*)
        map.put("hiprtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // (prog, size_t*)
        map.put("hiprtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // (prog, char*)
        return Collections.unmodifiableMap(map);
    }

    private Hiprtc(SymbolLookup lookup, String origin) {
        this.origin = origin;
        Linker linker = Linker.nativeLinker();
        this.version = bind(linker, lookup, "hiprtcVersion");
        this.getErrorString = bind(linker, lookup, "hiprtcGetErrorString");
        this.createProgram = bind(linker, lookup, "hiprtcCreateProgram");
        this.destroyProgram = bind(linker, lookup, "hiprtcDestroyProgram");
        this.compileProgram = bind(linker, lookup, "hiprtcCompileProgram");
        this.getCodeSize = bind(linker, lookup, "hiprtcGetCodeSize");
        this.getCode = bind(linker, lookup, "hiprtcGetCode");
        this.getProgramLogSize = bind(linker, lookup, "hiprtcGetProgramLogSize");
        this.getProgramLog = bind(linker, lookup, "hiprtcGetProgramLog");
    }

    /** Binds hiprtc from a loaded library; {@code origin} names it in messages. */
    static Hiprtc bind(SymbolLookup lookup, String origin) {
        return new Hiprtc(lookup, origin);
    }

    /** Where this hiprtc was loaded from. */
    String origin() {
        return origin;
    }

    /** "5.2". */
    String version() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment major = arena.allocate(JAVA_INT);
            MemorySegment minor = arena.allocate(JAVA_INT);
            int rc = (int) version.invokeExact(major, minor);
            return rc == SUCCESS ? major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0) : "unknown";
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** What one compilation produced: the result code, the code object (on success) and the program log. */
    record Compilation(int result, String resultName, Optional<byte[]> code, String log) {
        boolean succeeded() {
            return result == SUCCESS && code.isPresent();
        }
    }

    /**
     * Compiles {@code source} (program name {@code programName}) with {@code options}. Never throws for a
     * compile error: the caller turns a failed {@link Compilation} into a {@code KernelCompilationException}.
     */
    Compilation compile(String source, String programName, List<String> options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment programOut = arena.allocate(ADDRESS);
            int rc = (int) createProgram.invokeExact(programOut, arena.allocateFrom(source),
                    arena.allocateFrom(programName), 0, MemorySegment.NULL, MemorySegment.NULL);
            if (rc != SUCCESS) {
                return new Compilation(rc, errorString(rc), Optional.empty(), "");
            }
            MemorySegment program = programOut.get(ADDRESS, 0);
            try {
                MemorySegment optionArray = arena.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) {
                    optionArray.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                }
                MemorySegment optionsArgument = options.isEmpty() ? MemorySegment.NULL : optionArray;
                int compiled = (int) compileProgram.invokeExact(program, options.size(), optionsArgument);
                String log = programLog(arena, program);
                if (compiled != SUCCESS) {
                    return new Compilation(compiled, errorString(compiled), Optional.empty(), log);
                }
                MemorySegment size = arena.allocate(JAVA_LONG);
                rc = (int) getCodeSize.invokeExact(program, size);
                if (rc != SUCCESS) {
                    return new Compilation(rc, errorString(rc), Optional.empty(), log);
                }
                long bytes = size.get(JAVA_LONG, 0);
                if (bytes <= 0 || bytes > Integer.MAX_VALUE - 8) {
                    return new Compilation(rc, "hiprtcGetCodeSize returned " + bytes + " bytes", Optional.empty(), log);
                }
                MemorySegment code = arena.allocate(bytes);
                rc = (int) getCode.invokeExact(program, code);
                if (rc != SUCCESS) {
                    return new Compilation(rc, errorString(rc), Optional.empty(), log);
                }
                return new Compilation(SUCCESS, errorString(SUCCESS), Optional.of(code.toArray(JAVA_BYTE)), log);
            } finally {
                int ignored = (int) destroyProgram.invokeExact(programOut);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private String programLog(Arena arena, MemorySegment program) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        int rc = (int) getProgramLogSize.invokeExact(program, size);
        long bytes = size.get(JAVA_LONG, 0);
        if (rc != SUCCESS || bytes <= 1 || bytes > (64L << 20)) {
            return "";
        }
        MemorySegment log = arena.allocate(bytes + 1);
        rc = (int) getProgramLog.invokeExact(program, log);
        return rc == SUCCESS ? log.getString(0).strip() : "";
    }

    /** {@code hiprtcGetErrorString}, e.g. "HIPRTC_ERROR_COMPILATION". */
    String errorString(int result) {
        try {
            MemorySegment text = (MemorySegment) getErrorString.invokeExact(result);
            return text.equals(MemorySegment.NULL) ? "hiprtcResult(" + result + ")" : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private MethodHandle bind(Linker linker, SymbolLookup lookup, String name) {
        return linker.downcallHandle(find(lookup, name), SIGNATURES.get(name));
    }

    private MemorySegment find(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new IllegalStateException(origin + " lacks " + name
                + " (not a hiprtc library)"));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("hiprtc downcall failed", t);
    }
}
