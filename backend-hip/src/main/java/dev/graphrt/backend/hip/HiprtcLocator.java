package dev.graphrt.backend.hip;

import dev.graphrt.driver.RuntimeCompiler;
import dev.graphrt.spi.BackendConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Finds and loads hiprtc. Order: the backend option {@value #OPTION}, the environment variable {@value #ENV}
 * (both authoritative: when they do not load, the search stops and says so), then the HIP runtime library
 * itself (ROCm 5.x exports hiprtc from {@code libamdhip64}), then {@link #SONAMES} (ROCm 6's {@code libhiprtc}).
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class HiprtcLocator {
    /** Backend option naming the hiprtc library file. */
    static final String OPTION = "hip.hiprtc";
    /** Environment variable naming the hiprtc library file. */
    static final String ENV = "GRAPHRT_HIPRTC";
    /** Tried after the runtime library, through the loader's search path and ROCm's default prefix. */
    static final List<String> SONAMES =
            List.of("libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5", "/opt/rocm/lib/libhiprtc.so");

    private final BackendConfig config;
    private final Function<String, String> environment;
    private final Supplier<Optional<SymbolLookup>> runtimeLibrary;

    HiprtcLocator(BackendConfig config) {
        this(
                config,
                System::getenv,
                () -> HipLibrary.failure().isEmpty() ? Optional.of(HipLibrary.lookup()) : Optional.empty());
    }

    HiprtcLocator(
            BackendConfig config,
            Function<String, String> environment,
            Supplier<Optional<SymbolLookup>> runtimeLibrary) {
        this.config = config;
        this.environment = environment;
        this.runtimeLibrary = runtimeLibrary;
    }

    /** The outcome of a search: the bound hiprtc, or why none could be used. */
    record Located(Optional<RuntimeCompiler> hiprtc, String failure) {}

    /** A library named by configuration, and who named it (for messages). */
    record Explicit(String library, String source) {}

    /** The explicitly configured library (option first, then environment). */
    Optional<Explicit> explicitLibrary() {
        String option = config.option(OPTION, "");
        if (!option.isBlank()) {
            return Optional.of(new Explicit(option.strip(), "backend option " + OPTION));
        }
        String env = environment.apply(ENV);
        return env == null || env.isBlank()
                ? Optional.empty()
                : Optional.of(new Explicit(env.strip(), "environment variable " + ENV));
    }

    Located locate() {
        List<String> failures = new ArrayList<>();
        Optional<Explicit> explicit = explicitLibrary();
        if (explicit.isPresent()) {
            String path = explicit.get().library();
            return tryLoad(path, failures)
                    .map(h -> new Located(Optional.of(h), ""))
                    .orElseGet(() -> new Located(
                            Optional.empty(),
                            "hiprtc could not be loaded from " + path + " (set by the "
                                    + explicit.get().source() + "): " + String.join("; ", failures)));
        }
        Optional<SymbolLookup> runtime = runtimeLibrary.get();
        if (runtime.isPresent() && exportsHiprtc(runtime.get())) {
            return new Located(Optional.of(Hiprtc.bind(runtime.get(), HipLibrary.origin())), "");
        }
        for (String candidate : SONAMES) {
            Optional<RuntimeCompiler> hiprtc = tryLoad(candidate, failures);
            if (hiprtc.isPresent()) {
                return new Located(hiprtc, "");
            }
        }
        return new Located(
                Optional.empty(),
                "hiprtc not found: the HIP runtime library does not export it and "
                        + "none of " + SONAMES + " loads. Install ROCm's hiprtc, or set the backend option " + OPTION
                        + " or the environment variable " + ENV + " to the library file");
    }

    static boolean exportsHiprtc(SymbolLookup lookup) {
        return Hiprtc.SYMBOLS.stream().allMatch(name -> lookup.find(name).isPresent());
    }

    private static Optional<RuntimeCompiler> tryLoad(String candidate, List<String> failures) {
        try {
            SymbolLookup lookup = candidate.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                    : SymbolLookup.libraryLookup(candidate, Arena.global());
            if (!exportsHiprtc(lookup)) {
                failures.add(candidate + ": not a hiprtc library (lacks one of " + Hiprtc.SYMBOLS + ")");
                return Optional.empty();
            }
            return Optional.of(Hiprtc.bind(lookup, candidate));
        } catch (RuntimeException | LinkageError e) {
            failures.add(candidate + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
