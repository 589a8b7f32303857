package dev.graphrt.backend.hip;

import dev.graphrt.driver.NativeBinder;
import dev.graphrt.spi.BackendConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds {@code libamdhip64} and checks that it exports every required symbol; once one is bound, it stays
 * bound for the JVM's life.
 *
 * <p>Where it looks: the backend option {@value #OPTION}, else the system property {@value #PROPERTY}, else
 * the environment variable {@value #ENV}, else {@link #DEFAULT_CANDIDATES} in order. A configured library is
 * authoritative: when it does not load, the search stops and says so rather than silently binding another
 * HIP than the one asked for.
 *
 * <p>Why once per JVM: the downcall handles in {@link HipRuntime} are {@code static final} so the JIT can
 * inline them, so the library they bind cannot change after the first successful load. The choice is made
 * by the first {@link #load(BackendConfig)} (the probe, which sees the same options as {@code open}); a later
 * configuration naming another library is refused with a reason, not silently ignored. A failed search binds
 * nothing, so a later configuration may still name a library that works. Loading never throws.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class HipLibrary {
    /** Backend option naming the library file. */
    static final String OPTION = "hip.library";
    /** System property naming the library file. */
    static final String PROPERTY = "graphrt.hip.library";
    /** Environment variable naming the library file. */
    static final String ENV = "GRAPHRT_HIP_LIB";
    /** Tried in order when nothing is configured: the loader's search path, then ROCm's default prefix. */
    static final List<String> DEFAULT_CANDIDATES =
            List.of("libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6", "/opt/rocm/lib/libamdhip64.so");

    private static Loaded current; // guarded by HipLibrary.class

    private HipLibrary() {}

    /**
     * What loading found: the lookup and the name it was loaded by ({@code origin}), or why it failed.
     *
     * @param request the configured library this answers, or null for the default search
     * @param lookup  the library, or null when it could not be used
     * @param origin  the candidate that loaded (a soname or a path), or null
     * @param failure why the library cannot be used, or null
     */
    record Loaded(Explicit request, SymbolLookup lookup, String origin, String failure) {}

    /** A library named by configuration, and who named it (for messages). */
    record Explicit(String library, String source) {}

    /**
     * The library for {@code config}: binds it on first use (or after a failed search), and afterwards
     * answers with the bound one, or with a failure when {@code config}'s {@value #OPTION} names another.
     */
    static synchronized Loaded load(BackendConfig config) {
        Optional<Explicit> option = fromOption(config);
        if (current != null && current.lookup() != null) {
            if (option.isPresent() && !sameLibrary(option.get().library(), current.origin())) {
                return new Loaded(
                        option.get(),
                        null,
                        null,
                        "the backend option " + OPTION + "=" + option.get().library()
                                + " names another library than the one this JVM already bound (" + current.origin()
                                + "); the HIP library is chosen once per JVM: set it before the first probe, or use "
                                + ENV + " or -D" + PROPERTY);
            }
            return current;
        }
        Optional<Explicit> wanted = option.or(() -> explicitLibrary(System::getProperty, System::getenv));
        if (current == null || !Objects.equals(current.request(), wanted.orElse(null))) {
            current = locate(wanted, DEFAULT_CANDIDATES);
        }
        return current;
    }

    /** Why HIP cannot be used, or empty when a library is bound. Searches with the defaults if nothing did yet. */
    static Optional<String> failure() {
        return Optional.ofNullable(loadedOrDefault().failure());
    }

    /** The name the bound library was loaded by (a soname or a path); null when none is bound. */
    static String origin() {
        return loadedOrDefault().origin();
    }

    /** The bound library; only call after {@link #failure()} was empty. */
    static SymbolLookup lookup() {
        Loaded loaded = loadedOrDefault();
        if (loaded.lookup() == null) {
            throw new IllegalStateException(loaded.failure());
        }
        return loaded.lookup();
    }

    private static synchronized Loaded loadedOrDefault() {
        return current != null ? current : load(BackendConfig.defaults());
    }

    /** The backend option, when set and not blank. */
    static Optional<Explicit> fromOption(BackendConfig config) {
        String option = config.option(OPTION, "");
        return option.isBlank()
                ? Optional.empty()
                : Optional.of(new Explicit(option.strip(), "backend option " + OPTION));
    }

    /** The system property, else the environment variable, when set and not blank. */
    static Optional<Explicit> explicitLibrary(
            Function<String, String> properties, Function<String, String> environment) {
        String property = properties.apply(PROPERTY);
        if (property != null && !property.isBlank()) {
            return Optional.of(new Explicit(property.strip(), "system property " + PROPERTY));
        }
        String env = environment.apply(ENV);
        if (env != null && !env.isBlank()) {
            return Optional.of(new Explicit(env.strip(), "environment variable " + ENV));
        }
        return Optional.empty();
    }

    /** Loads the explicit library, or the first of {@code candidates} that loads; never throws. */
    static Loaded locate(Optional<Explicit> explicit, List<String> candidates) {
        List<String> failures = new ArrayList<>();
        if (explicit.isPresent()) {
            String library = explicit.get().library();
            SymbolLookup lookup = tryLoad(library, failures);
            if (lookup == null) {
                return new Loaded(
                        explicit.get(),
                        null,
                        null,
                        "libamdhip64 not found (" + library + ", set by the "
                                + explicit.get().source() + ", does not load: " + String.join("; ", failures) + ")");
            }
            return checked(explicit.get(), lookup, library);
        }
        for (String candidate : candidates) {
            SymbolLookup lookup = tryLoad(candidate, failures);
            if (lookup != null) {
                return checked(null, lookup, candidate);
            }
        }
        return new Loaded(
                null,
                null,
                null,
                "libamdhip64 not found (tried " + String.join(", ", candidates)
                        + "; install ROCm's HIP runtime, e.g. Debian's libamdhip64-5, or name the library file with the "
                        + "backend option " + OPTION + ", " + ENV + " or -D" + PROPERTY + ")");
    }

    /** Whether {@code option} names the library loaded as {@code origin} (the same string, or the same file). */
    static boolean sameLibrary(String option, String origin) {
        if (option.equals(origin)) {
            return true;
        }
        if (!option.contains("/") || origin == null || !origin.contains("/")) {
            return false;
        }
        try {
            return Path.of(option).toRealPath().equals(Path.of(origin).toRealPath());
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    private static Loaded checked(Explicit request, SymbolLookup lookup, String origin) {
        List<String> missing = NativeBinder.missing(lookup, HipNative.Symbol.values());
        if (!missing.isEmpty()) {
            return new Loaded(
                    request,
                    null,
                    origin,
                    origin + " lacks " + String.join(", ", missing)
                            + " (HIP runtime too old or not HIP: GraphRT needs ROCm 5.2 or later)");
        }
        return new Loaded(request, lookup, origin, null);
    }

    private static SymbolLookup tryLoad(String candidate, List<String> failures) {
        try {
            return candidate.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                    : SymbolLookup.libraryLookup(candidate, Arena.global());
        } catch (IllegalArgumentException notFound) {
            failures.add(candidate + ": " + notFound.getMessage());
            return null;
        } catch (RuntimeException | LinkageError e) {
            failures.add(candidate + ": " + e
                    + " (run with --enable-native-access=dev.graphrt.backend.hip,dev.graphrt.driver or ALL-UNNAMED)");
            return null;
        }
    }
}
