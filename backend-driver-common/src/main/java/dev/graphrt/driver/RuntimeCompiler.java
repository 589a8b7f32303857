package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.api.KernelCompilationException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime compiler of the NVRTC shape through FFM (NVRTC, hiprtc): source in, a loadable image and the
 * compiler's log out. The two libraries have the same calls under another prefix; a {@link Flavor} holds what
 * truly differs: the prefix, the name of the image ({@code PTX}, {@code Code}), whether the image must end with
 * a NUL (PTX is text) and the words for messages.
 *
 * <p>Signatures follow {@code nvrtc.h} and {@code hiprtc.h}: the program is a pointer, the result an int, sizes
 * {@code size_t}. Instance handles rather than {@code static final}: the library is a per-backend option and
 * compilation is rare (the core caches kernels), so constant-folding buys nothing here.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
public final class RuntimeCompiler {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeCompiler.class);
    /** {@code NVRTC_SUCCESS}, {@code HIPRTC_SUCCESS}. */
    public static final int SUCCESS = 0;
    /** {@code NVRTC_ERROR_COMPILATION}, {@code HIPRTC_ERROR_COMPILATION}: the log says why. */
    public static final int ERROR_COMPILATION = 6;
    /** Logs longer than this are not read (a broken library's size). */
    private static final long MAX_LOG_BYTES = 64L << 20;

    /**
     * What one runtime compiler spells differently.
     *
     * @param displayName   its name in messages ({@code NVRTC}, {@code hiprtc})
     * @param prefix        its functions' prefix ({@code nvrtc}, {@code hiprtc})
     * @param imageName     the image in its function names ({@code PTX}, {@code Code})
     * @param nulTerminated whether the image must end with a NUL (PTX text for {@code cuModuleLoadDataEx})
     * @param notIt         what a library lacking a symbol is, for the message
     */
    public record Flavor(String displayName, String prefix, String imageName, boolean nulTerminated, String notIt) {
        /** The bound functions, named as exported, with their C signatures; all must be present. */
        public Map<String, FunctionDescriptor> signatures() {
            Map<String, FunctionDescriptor> map = new LinkedHashMap<>();
            map.put(prefix + "Version", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // (int* major, int* minor)
            map.put(prefix + "GetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT)); // const char*(result)
            map.put(
                    prefix + "CreateProgram",
                    FunctionDescriptor.of(
                            JAVA_INT, // (program*, src, name,
                            ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS)); //  int n, headers, names)
            map.put(prefix + "DestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS)); // (program*)
            map.put(
                    prefix + "CompileProgram",
                    FunctionDescriptor.of(
                            JAVA_INT, // (program, int n,
                            ADDRESS, JAVA_INT, ADDRESS)); //  const char** options)
            map.put(prefix + "Get" + imageName + "Size", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // size_t*
            map.put(prefix + "Get" + imageName, FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // char*
            map.put(
                    prefix + "GetProgramLogSize",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // (program, size_t*)
            map.put(prefix + "GetProgramLog", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)); // (program, char*)
            return Collections.unmodifiableMap(map);
        }
    }

    /** What one compilation produced: the result code, the image (on success) and the program log. */
    public record Compilation(int result, String resultName, Optional<byte[]> image, String log) {
        public boolean succeeded() {
            return result == SUCCESS && image.isPresent();
        }
    }

    private final Flavor flavor;
    private final String origin;
    private final MethodHandle version;
    private final MethodHandle getErrorString;
    private final MethodHandle createProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle getImageSize;
    private final MethodHandle getImage;
    private final MethodHandle getProgramLogSize;
    private final MethodHandle getProgramLog;

    private RuntimeCompiler(Flavor flavor, SymbolLookup lookup, String origin) {
        this.flavor = Objects.requireNonNull(flavor, "flavor");
        this.origin = Objects.requireNonNull(origin, "origin");
        Map<String, FunctionDescriptor> signatures = flavor.signatures();
        MethodHandle[] handles = new MethodHandle[signatures.size()];
        int i = 0;
        for (Map.Entry<String, FunctionDescriptor> entry : signatures.entrySet()) {
            MemorySegment address = lookup.find(entry.getKey())
                    .orElseThrow(() -> new IllegalStateException(
                            origin + " lacks " + entry.getKey() + " (" + flavor.notIt() + ")"));
            handles[i++] = Linker.nativeLinker().downcallHandle(address, entry.getValue());
        }
        this.version = handles[0];
        this.getErrorString = handles[1];
        this.createProgram = handles[2];
        this.destroyProgram = handles[3];
        this.compileProgram = handles[4];
        this.getImageSize = handles[5];
        this.getImage = handles[6];
        this.getProgramLogSize = handles[7];
        this.getProgramLog = handles[8];
    }

    /** Binds the compiler of {@code flavor} from a loaded library; {@code origin} names it in messages. */
    public static RuntimeCompiler bind(Flavor flavor, SymbolLookup lookup, String origin) {
        return new RuntimeCompiler(flavor, lookup, origin);
    }

    /** Where this compiler was loaded from. */
    public String origin() {
        return origin;
    }

    /** "13.0". */
    public String version() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment major = arena.allocate(JAVA_INT);
            MemorySegment minor = arena.allocate(JAVA_INT);
            int rc = (int) version.invokeExact(major, minor);
            return rc == SUCCESS ? major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0) : "unknown";
        } catch (Throwable t) {
            throw DriverCalls.unexpected(flavor.displayName(), t);
        }
    }

    /**
     * Compiles {@code text} of kernel {@code entry} into an image, or throws a {@link KernelCompilationException}
     * with the compiler's log; {@code target} ends the message (e.g. {@code " for compute_90"}).
     */
    public byte[] compileOrThrow(String entry, String text, String programName, List<String> options, String target) {
        Compilation result = compile(text, programName, options);
        if (!result.succeeded()) {
            String what = result.result() == ERROR_COMPILATION
                    ? flavor.displayName() + " could not compile kernel '" + entry + "'" + target
                    : flavor.displayName() + " failed on kernel '" + entry + "': " + result.result() + " "
                            + result.resultName();
            throw new KernelCompilationException(what + " (" + origin + ")", result.log());
        }
        if (!result.log().isBlank()) {
            LOG.debug("{} log for '{}': {}", flavor.displayName(), entry, result.log());
        }
        return result.image().orElseThrow();
    }

    /**
     * Compiles {@code source} (program name {@code programName}) with {@code options}. Never throws for a compile
     * error: a failed {@link Compilation} says why.
     */
    public Compilation compile(String source, String programName, List<String> options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment programOut = arena.allocate(ADDRESS);
            int rc = (int) createProgram.invokeExact(
                    programOut,
                    arena.allocateFrom(source),
                    arena.allocateFrom(programName),
                    0,
                    MemorySegment.NULL,
                    MemorySegment.NULL);
            if (rc != SUCCESS) {
                return new Compilation(rc, errorString(rc), Optional.empty(), "");
            }
            MemorySegment program = programOut.get(ADDRESS, 0);
            try {
                MemorySegment optionArray = MemorySegment.NULL;
                if (!options.isEmpty()) {
                    optionArray = arena.allocate(ADDRESS, options.size());
                    for (int i = 0; i < options.size(); i++) {
                        optionArray.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                    }
                }
                int compiled = (int) compileProgram.invokeExact(program, options.size(), optionArray);
                String log = programLog(arena, program);
                if (compiled != SUCCESS) {
                    return new Compilation(compiled, errorString(compiled), Optional.empty(), log);
                }
                return image(arena, program, log);
            } finally {
                int ignored = (int) destroyProgram.invokeExact(programOut);
            }
        } catch (Throwable t) {
            throw DriverCalls.unexpected(flavor.displayName(), t);
        }
    }

    private Compilation image(Arena arena, MemorySegment program, String log) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        int rc = (int) getImageSize.invokeExact(program, size);
        if (rc != SUCCESS) {
            return new Compilation(rc, errorString(rc), Optional.empty(), log);
        }
        long bytes = size.get(JAVA_LONG, 0);
        if (bytes <= 0 || bytes > Integer.MAX_VALUE - 8) {
            return new Compilation(
                    rc,
                    flavor.prefix() + "Get" + flavor.imageName() + "Size returned " + bytes + " bytes",
                    Optional.empty(),
                    log);
        }
        MemorySegment image = arena.allocate(bytes);
        rc = (int) getImage.invokeExact(program, image);
        if (rc != SUCCESS) {
            return new Compilation(rc, errorString(rc), Optional.empty(), log);
        }
        byte[] bytesOut = image.toArray(JAVA_BYTE);
        if (flavor.nulTerminated() && bytesOut[bytesOut.length - 1] != 0) {
            bytesOut = Arrays.copyOf(bytesOut, bytesOut.length + 1); // keep it NUL-terminated
        }
        return new Compilation(SUCCESS, errorString(SUCCESS), Optional.of(bytesOut), log);
    }

    private String programLog(Arena arena, MemorySegment program) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        int rc = (int) getProgramLogSize.invokeExact(program, size);
        long bytes = size.get(JAVA_LONG, 0);
        if (rc != SUCCESS || bytes <= 1 || bytes > MAX_LOG_BYTES) {
            return "";
        }
        MemorySegment log = arena.allocate(bytes + 1);
        rc = (int) getProgramLog.invokeExact(program, log);
        return rc == SUCCESS ? log.getString(0).strip() : "";
    }

    /** The compiler's name for {@code result}, e.g. "NVRTC_ERROR_COMPILATION". */
    public String errorString(int result) {
        try {
            String text = DriverCalls.cString((MemorySegment) getErrorString.invokeExact(result));
            return text != null ? text : flavor.prefix() + "Result(" + result + ")";
        } catch (Throwable t) {
            throw DriverCalls.unexpected(flavor.displayName(), t);
        }
    }
}
