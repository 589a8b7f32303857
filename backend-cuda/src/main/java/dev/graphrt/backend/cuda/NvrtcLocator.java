package dev.graphrt.backend.cuda;

import dev.graphrt.spi.BackendConfig;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Finds and loads NVRTC. Order: the backend option {@value #OPTION}, the environment variable
 * {@value #ENV}, {@code libnvrtc.so*} in the CUDA toolkit ({@code /usr/local/cuda/lib64}), then what
 * {@code ldconfig -p} lists, then the bare sonames on the loader path. An explicit option or variable is
 * authoritative: if it does not load, the search stops there and says so, rather than silently compiling
 * with another NVRTC than the one asked for.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
final class NvrtcLocator {
    /** Backend option naming the NVRTC library file. */
    static final String OPTION = "cuda.nvrtc";
    /** Environment variable naming the NVRTC library file. */
    static final String ENV = "GRAPHRT_NVRTC";
    /** The toolkit directories searched for {@code libnvrtc.so*}. */
    static final List<Path> TOOLKIT_DIRECTORIES =
            List.of(Path.of("/usr/local/cuda/lib64"), Path.of("/usr/local/cuda/lib"));
    /** Sonames tried last, through the loader's own search path. */
    static final List<String> SONAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");

    private final BackendConfig config;
    private final Function<String, String> environment;
    private final List<Path> toolkitDirectories;
    private final Supplier<String> ldconfigListing;

    NvrtcLocator(BackendConfig config) {
        this(config, System::getenv, TOOLKIT_DIRECTORIES, NvrtcLocator::runLdconfig);
    }

    NvrtcLocator(
            BackendConfig config,
            Function<String, String> environment,
            List<Path> toolkitDirectories,
            Supplier<String> ldconfigListing) {
        this.config = config;
        this.environment = environment;
        this.toolkitDirectories = List.copyOf(toolkitDirectories);
        this.ldconfigListing = ldconfigListing;
    }

    /** The explicitly configured library (option first, then environment), if any. */
    Optional<String> explicitLibrary() {
        String option = config.option(OPTION, "");
        if (!option.isBlank()) {
            return Optional.of(option);
        }
        String env = environment.apply(ENV);
        return env == null || env.isBlank() ? Optional.empty() : Optional.of(env);
    }

    /** {@code libnvrtc.so*} files in the toolkit directories (not the builtins library), sorted. */
    List<String> toolkitCandidates() {
        List<String> found = new ArrayList<>();
        for (Path directory : toolkitDirectories) {
            if (!Files.isDirectory(directory)) {
                continue;
            }
            try (Stream<Path> files = Files.list(directory)) {
                files.filter(p -> p.getFileName().toString().startsWith("libnvrtc.so"))
                        .sorted(Comparator.comparing(p -> p.getFileName().toString()))
                        .forEach(p -> found.add(p.toString()));
            } catch (IOException | RuntimeException e) {
                // an unreadable directory is simply not a candidate
            }
        }
        return found;
    }

    /** The {@code libnvrtc.so*} paths in an {@code ldconfig -p} listing. */
    static List<String> parseLdconfig(String listing) {
        Set<String> paths = new LinkedHashSet<>();
        for (String line : listing.split("\n")) {
            String trimmed = line.strip();
            int arrow = trimmed.indexOf("=>");
            if (trimmed.startsWith("libnvrtc.so") && arrow > 0) {
                paths.add(trimmed.substring(arrow + 2).strip());
            }
        }
        return List.copyOf(paths);
    }

    /** The search order, for messages and tests; the ldconfig part is only computed when asked. */
    List<String> candidates() {
        Optional<String> explicit = explicitLibrary();
        if (explicit.isPresent()) {
            return List.of(explicit.get());
        }
        List<String> all = new ArrayList<>(toolkitCandidates());
        all.addAll(parseLdconfig(ldconfigListing.get()));
        all.addAll(SONAMES);
        return List.copyOf(new LinkedHashSet<>(all));
    }

    /** The outcome of a search: the bound NVRTC, or why none could be used. */
    record Located(Optional<Nvrtc> nvrtc, String failure) {}

    /** Loads the first candidate that binds. */
    Located locate() {
        Optional<String> explicit = explicitLibrary();
        List<String> failures = new ArrayList<>();
        if (explicit.isPresent()) {
            String path = explicit.get();
            String source =
                    config.option(OPTION, "").isBlank() ? "environment variable " + ENV : "backend option " + OPTION;
            return tryLoad(path, failures)
                    .map(nvrtc -> new Located(Optional.of(nvrtc), ""))
                    .orElseGet(() -> new Located(
                            Optional.empty(),
                            "NVRTC could not be loaded from " + path + " (set by the " + source + "): "
                                    + String.join("; ", failures)));
        }
        Set<String> tried = new LinkedHashSet<>();
        List<Supplier<List<String>>> stages =
                List.of(this::toolkitCandidates, () -> parseLdconfig(ldconfigListing.get()), () -> SONAMES);
        for (Supplier<List<String>> stage : stages) {
            for (String candidate : stage.get()) {
                if (!tried.add(candidate)) {
                    continue;
                }
                Optional<Nvrtc> nvrtc = tryLoad(candidate, failures);
                if (nvrtc.isPresent()) {
                    return new Located(nvrtc, "");
                }
            }
        }
        return new Located(
                Optional.empty(),
                "NVRTC (libnvrtc.so) not found; tried " + tried
                        + ". Install the CUDA toolkit's NVRTC, or set the backend option " + OPTION
                        + " or the environment variable " + ENV + " to the library file");
    }

    private static Optional<Nvrtc> tryLoad(String candidate, List<String> failures) {
        try {
            SymbolLookup lookup = candidate.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                    : SymbolLookup.libraryLookup(candidate, Arena.global());
            return Optional.of(Nvrtc.bind(lookup, candidate));
        } catch (RuntimeException | LinkageError e) {
            failures.add(candidate + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    private static String runLdconfig() {
        for (String ldconfig : List.of("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig")) {
            try {
                Process process = new ProcessBuilder(ldconfig, "-p")
                        .redirectErrorStream(true)
                        .start();
                try (InputStream out = process.getInputStream()) {
                    byte[] bytes = out.readAllBytes();
                    if (!process.waitFor(5, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        continue;
                    }
                    if (process.exitValue() == 0) {
                        return new String(bytes, StandardCharsets.UTF_8);
                    }
                }
            } catch (IOException e) {
                // try the next location
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "";
            }
        }
        return "";
    }
}
