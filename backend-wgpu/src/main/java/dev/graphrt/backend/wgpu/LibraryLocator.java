package dev.graphrt.backend.wgpu;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the {@code webgpu.h} library is, in this order: the backend option {@value #OPTION}, the system property
 * {@value #PROPERTY}, the environment variable {@value #ENV}, then the project's own fetch location
 * {@value #DEFAULT_RELATIVE} (what {@code scripts/setup-webgpu.sh} installs) in the working directory or any of
 * its parents, so tests run from a module directory find the repository's copy.
 *
 * @param path     the library to load, or empty when nothing was configured and the default location is missing
 * @param searched what was tried, for the probe's reason
 */
record LibraryLocator(Optional<Path> path, String searched) {
    static final String OPTION = "wgpu.library";
    static final String PROPERTY = "graphrt.wgpu.library";
    static final String ENV = "GRAPHRT_WEBGPU_LIB";
    static final String DEFAULT_RELATIVE = ".natives/dawn/libwebgpu_wrapper.so";

    static LibraryLocator locate(Map<String, String> options) {
        return locate(options, System.getProperty(PROPERTY), System.getenv(ENV), Path.of(""));
    }

    static LibraryLocator locate(Map<String, String> options, String property, String env, Path workingDir) {
        String explicit = firstNonBlank(options.get(OPTION), property, env);
        if (explicit != null) {
            String source = nonBlank(options.get(OPTION))
                    ? "option " + OPTION
                    : nonBlank(property) ? "system property " + PROPERTY : "environment variable " + ENV;
            try {
                return new LibraryLocator(Optional.of(Path.of(explicit)), explicit + " (from " + source + ")");
            } catch (InvalidPathException e) {
                return new LibraryLocator(Optional.empty(), "invalid path '" + explicit + "' from " + source);
            }
        }
        List<String> tried = new ArrayList<>();
        for (Path dir = workingDir.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(DEFAULT_RELATIVE);
            if (Files.isRegularFile(candidate)) {
                return new LibraryLocator(Optional.of(candidate), candidate.toString());
            }
            tried.add(candidate.toString());
        }
        return new LibraryLocator(
                Optional.empty(),
                "libwebgpu_wrapper.so not found (looked for " + DEFAULT_RELATIVE
                        + " in the working directory and its parents; run scripts/setup-webgpu.sh, or set " + ENV
                        + " or the option " + OPTION + ")");
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) {
            if (nonBlank(v)) {
                return v.strip();
            }
        }
        return null;
    }

    private static boolean nonBlank(String value) {
        return value != null && !value.isBlank();
    }
}
