package dev.graphrt.backend.cuda;

import dev.graphrt.driver.NativeBinder;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Optional;

/**
 * Finds {@code libcuda.so.1} once per JVM and checks that it exports every required symbol.
 *
 * <p>Why a separate class: loading must never throw (the probe reports a missing driver as a reason,
 * not an exception), while the downcall handles in {@link CudaDriver} are {@code static final} so the JIT
 * can inline them. The handles' holder class is therefore initialised only after this class said the
 * library is there and complete. The outcome is immutable: loading is attempted exactly once.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class CudaLibrary {
    /** The driver library's soname; the loader finds it on the standard search path. */
    static final String NAME = "libcuda.so.1";

    private static final Loaded LOADED = load();

    private CudaLibrary() {}

    /** Why the driver cannot be used, or empty when it loaded with every required symbol. */
    static Optional<String> failure() {
        return Optional.ofNullable(LOADED.failure());
    }

    /** The loaded library; only call after {@link #failure()} was empty. */
    static SymbolLookup lookup() {
        if (LOADED.lookup() == null) {
            throw new IllegalStateException(LOADED.failure());
        }
        return LOADED.lookup();
    }

    private record Loaded(SymbolLookup lookup, String failure) {}

    private static Loaded load() {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(NAME, Arena.global());
        } catch (IllegalArgumentException notFound) {
            return new Loaded(null, NAME + " not found (no NVIDIA driver on this machine)");
        } catch (RuntimeException | LinkageError e) {
            return new Loaded(
                    null,
                    NAME + " could not be loaded: " + e
                            + " (run with --enable-native-access=dev.graphrt.backend.cuda,dev.graphrt.driver or ALL-UNNAMED)");
        }
        List<String> missing = NativeBinder.missing(lookup, CudaNative.Symbol.values());
        if (!missing.isEmpty()) {
            return new Loaded(
                    null,
                    NAME + " lacks " + String.join(", ", missing)
                            + " (driver too old: GraphRT needs a CUDA 12 or later driver)");
        }
        return new Loaded(lookup, null);
    }
}
