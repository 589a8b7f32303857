package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.graphrt.driver.DriverCalls;
import dev.graphrt.driver.RuntimeCompiler;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * NVRTC ({@code libnvrtc.so}): CUDA C source in, PTX out, through the shared {@link RuntimeCompiler} flow, plus
 * the one call hiprtc lacks: the virtual architectures it can target. Signatures follow {@code nvrtc.h} (CUDA
 * 11.2+).
 *
 * @param compiler             the compilation calls
 * @param numSupportedArchs    {@code nvrtcGetNumSupportedArchs(int*)}, or null when absent
 * @param supportedArchs       {@code nvrtcGetSupportedArchs(int*)}, or null when absent
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
record Nvrtc(RuntimeCompiler compiler, MethodHandle numSupportedArchs, MethodHandle supportedArchs) {
    /** What NVRTC spells its own way: the prefix, "PTX", and a NUL-terminated image. */
    static final RuntimeCompiler.Flavor FLAVOR =
            new RuntimeCompiler.Flavor("NVRTC", "nvrtc", "PTX", true, "not an NVRTC library, or older than 11.2");

    /** Binds NVRTC from a loaded library; {@code origin} names it in messages (its path). */
    static Nvrtc bind(SymbolLookup lookup, String origin) {
        FunctionDescriptor intOut = FunctionDescriptor.of(JAVA_INT, ADDRESS); // (int*)
        Linker linker = Linker.nativeLinker();
        return new Nvrtc(
                RuntimeCompiler.bind(FLAVOR, lookup, origin),
                lookup.find("nvrtcGetNumSupportedArchs")
                        .map(a -> linker.downcallHandle(a, intOut))
                        .orElse(null),
                lookup.find("nvrtcGetSupportedArchs")
                        .map(a -> linker.downcallHandle(a, intOut))
                        .orElse(null));
    }

    /** Where this NVRTC was loaded from. */
    String origin() {
        return compiler.origin();
    }

    /** "13.0". */
    String version() {
        return compiler.version();
    }

    /** CUDA C to NUL-terminated PTX for {@code architecture}, or a {@code KernelCompilationException} with the log. */
    byte[] compile(String entry, String text, String architecture) {
        return compiler.compileOrThrow(
                entry, text, entry + ".cu", List.of("--gpu-architecture=" + architecture), " for " + architecture);
    }

    /** The virtual architectures this NVRTC can target (e.g. 75, 80, 86, 89, 90, 100, 120); empty if unknown. */
    int[] supportedArchitectures() {
        if (numSupportedArchs == null || supportedArchs == null) {
            return new int[0];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            int rc = (int) numSupportedArchs.invokeExact(count);
            int n = count.get(JAVA_INT, 0);
            if (rc != RuntimeCompiler.SUCCESS || n <= 0 || n > 1024) {
                return new int[0];
            }
            MemorySegment archs = arena.allocate(JAVA_INT, n);
            rc = (int) supportedArchs.invokeExact(archs);
            return rc == RuntimeCompiler.SUCCESS ? archs.toArray(JAVA_INT) : new int[0];
        } catch (Throwable t) {
            throw DriverCalls.unexpected("nvrtcGetSupportedArchs", t);
        }
    }
}
