package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;

/**
 * NVRTC ({@code libnvrtc.so}) through FFM: CUDA C source in, PTX and the compiler's log out. Its layouts
 * and constants live here, as {@link CudaNative} holds libcuda's. Signatures follow {@code nvrtc.h}
 * (CUDA 11.2+): {@code nvrtcProgram} is a pointer, {@code nvrtcResult} an int, sizes are {@code size_t}.
 *
 * <p>Instance handles rather than {@code static final}: the library's path is a per-backend option and
 * compilation is rare (the core caches kernels), so constant-folding buys nothing here.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class Nvrtc {
    /** {@code NVRTC_SUCCESS}. */
    static final int SUCCESS = 0;
    /** {@code NVRTC_ERROR_COMPILATION}: the source did not compile; the log says why. */
    static final int ERROR_COMPILATION = 6;

    private final String origin;
    private final MethodHandle version;
    private final MethodHandle getErrorString;
    private final MethodHandle getNumSupportedArchs;
    private final MethodHandle getSupportedArchs;
    private final MethodHandle createProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle getPtxSize;
    private final MethodHandle getPtx;
    private final MethodHandle getProgramLogSize;
    private final MethodHandle getProgramLog;

    private Nvrtc(SymbolLookup lookup, String origin) {
        this.origin = origin;
        Linker linker = Linker.nativeLinker();
        this.version = bind(linker, lookup, "nvrtcVersion", true, ADDRESS, ADDRESS);          // (int*, int*)
        this.getErrorString = bindReturning(linker, lookup, "nvrtcGetErrorString");            // const char*(nvrtcResult)
        this.getNumSupportedArchs = bind(linker, lookup, "nvrtcGetNumSupportedArchs", false, ADDRESS); // (int*)
        this.getSupportedArchs = bind(linker, lookup, "nvrtcGetSupportedArchs", false, ADDRESS);       // (int*)
        this.createProgram = bind(linker, lookup, "nvrtcCreateProgram", true,                 // (nvrtcProgram*, src,
                ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);                          //  name, n, hdrs, names)
        this.destroyProgram = bind(linker, lookup, "nvrtcDestroyProgram", true, ADDRESS);     // (nvrtcProgram*)
        this.compileProgram = bind(linker, lookup, "nvrtcCompileProgram", true,               // (prog, int n,
                ADDRESS, JAVA_INT, ADDRESS);                                                     //  const char* const*)
        this.getPtxSize = bind(linker, lookup, "nvrtcGetPTXSize", true, ADDRESS, ADDRESS);    // (prog, size_t*)
        this.getPtx = bind(linker, lookup, "nvrtcGetPTX", true, ADDRESS, ADDRESS);            // (prog, char*)
        this.getProgramLogSize = bind(linker, lookup, "nvrtcGetProgramLogSize", true, ADDRESS, ADDRESS);
        this.getProgramLog = bind(linker, lookup, "nvrtcGetProgramLog", true, ADDRESS, ADDRESS);
    }

    /** Binds NVRTC from a loaded library; {@code origin} names it in messages (its path). */
    static Nvrtc bind(SymbolLookup lookup, String origin) {
        return new Nvrtc(lookup, origin);
    }

    /** Where this NVRTC was loaded from. */
    String origin() {
        return origin;
    }

    /** "13.0". */
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

    /** The virtual architectures this NVRTC can target (e.g. 75, 80, 86, 89, 90, 100, 120); empty if unknown. */
    int[] supportedArchitectures() {
        if (getNumSupportedArchs == null || getSupportedArchs == null) {
            return new int[0];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            int rc = (int) getNumSupportedArchs.invokeExact(count);
            int n = count.get(JAVA_INT, 0);
            if (rc != SUCCESS || n <= 0 || n > 1024) {
                return new int[0];
            }
            MemorySegment archs = arena.allocate(JAVA_INT, n);
            rc = (int) getSupportedArchs.invokeExact(archs);
            return rc == SUCCESS ? archs.toArray(JAVA_INT) : new int[0];
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** What one compilation produced: the result code, the PTX (on success) and the program log. */
    record Compilation(int result, String resultName, Optional<byte[]> ptx, String log) {
        boolean succeeded() {
            return result == SUCCESS && ptx.isPresent();
        }
    }

    /**
     * Compiles {@code source} (program name {@code programName}) with {@code options}. Never throws for a
     * compile error: the caller turns a failed {@link Compilation} into a {@code KernelCompilationException}.
     * The returned PTX bytes end with the NUL terminator NVRTC writes, as {@code cuModuleLoadDataEx} needs.
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
                int compiled = (int) compileProgram.invokeExact(program, options.size(), optionArray);
                String log = programLog(arena, program);
                if (compiled != SUCCESS) {
                    return new Compilation(compiled, errorString(compiled), Optional.empty(), log);
                }
                MemorySegment size = arena.allocate(JAVA_LONG);
                rc = (int) getPtxSize.invokeExact(program, size);
                if (rc != SUCCESS) {
                    return new Compilation(rc, errorString(rc), Optional.empty(), log);
                }
                long bytes = size.get(JAVA_LONG, 0);
                MemorySegment ptx = arena.allocate(Math.max(1, bytes));
                rc = (int) getPtx.invokeExact(program, ptx);
                if (rc != SUCCESS) {
                    return new Compilation(rc, errorString(rc), Optional.empty(), log);
                }
                byte[] image = ptx.toArray(JAVA_BYTE);
                if (image[image.length - 1] != 0) {
                    image = java.util.Arrays.copyOf(image, image.length + 1); // keep it NUL-terminated
                }
                return new Compilation(SUCCESS, errorString(SUCCESS), Optional.of(image), log);
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
        if (rc != SUCCESS || bytes <= 1) {
            return "";
        }
        MemorySegment log = arena.allocate(bytes);
        rc = (int) getProgramLog.invokeExact(program, log);
        return rc == SUCCESS ? log.getString(0).strip() : "";
    }

    /** {@code nvrtcGetErrorString}, e.g. "NVRTC_ERROR_COMPILATION". */
    String errorString(int result) {
        try {
            MemorySegment text = (MemorySegment) getErrorString.invokeExact(result);
            return text.equals(MemorySegment.NULL) ? "nvrtcResult(" + result + ")" : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private MethodHandle bind(Linker linker, SymbolLookup lookup, String name, boolean required, MemoryLayout... args) {
        Optional<MemorySegment> address = lookup.find(name);
        if (address.isEmpty()) {
            if (required) {
                throw new IllegalStateException(origin + " lacks " + name + " (not an NVRTC library, or older than 11.2)");
            }
            return null;
        }
        return linker.downcallHandle(address.get(), FunctionDescriptor.of(JAVA_INT, args));
    }

    private MethodHandle bindReturning(Linker linker, SymbolLookup lookup, String name) {
        MemorySegment address = lookup.find(name).orElseThrow(
                () -> new IllegalStateException(origin + " lacks " + name + " (not an NVRTC library)"));
        return linker.downcallHandle(address, FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("NVRTC downcall failed", t);
    }
}
