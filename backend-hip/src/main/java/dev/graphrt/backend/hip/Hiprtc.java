package dev.graphrt.backend.hip;

import dev.graphrt.driver.RuntimeCompiler;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Map;

/**
 * hiprtc: HIP C source in, a loadable code object out, through the shared {@link RuntimeCompiler} flow. In ROCm
 * 5.x its functions are exported by {@code libamdhip64} itself; ROCm 6 moved them to {@code libhiprtc}
 * ({@link HiprtcLocator} finds either). Signatures follow {@code hiprtc.h} (ROCm 5.2.3).
 *
 * <p>No architecture option is passed: hiprtc then compiles for the calling thread's current device (AMD's
 * {@code findIsa}), which the compiler made current first.
 */
final class Hiprtc {
    /** {@code HIPRTC_ERROR_COMPILATION}: the source did not compile; the log says why. */
    static final int ERROR_COMPILATION = RuntimeCompiler.ERROR_COMPILATION;

    /** What hiprtc spells its own way: the prefix, "Code", and a binary image with no terminator. */
    static final RuntimeCompiler.Flavor FLAVOR =
            new RuntimeCompiler.Flavor("hiprtc", "hiprtc", "Code", false, "not a hiprtc library");

    /** The functions bound, named as exported, with their C signatures from {@code hiprtc.h}; all must be present. */
    static final Map<String, FunctionDescriptor> SIGNATURES = FLAVOR.signatures();

    /** The symbols a library must export to be bound. */
    static final List<String> SYMBOLS = List.copyOf(SIGNATURES.keySet());

    private Hiprtc() {}

    /** Binds hiprtc from a loaded library; {@code origin} names it in messages. */
    static RuntimeCompiler bind(SymbolLookup lookup, String origin) {
        return RuntimeCompiler.bind(FLAVOR, lookup, origin);
    }
}
