package dev.graphrt.backend.wgpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the driver libraries the WebGPU implementation loaded (the Vulkan loader, the ICD and what the ICD pulled
 * in) resident for the JVM's life, by opening each once more with a handle that is never closed: a later
 * {@code dlclose} by the loader then only drops a reference, and the code a driver thread may still run stays
 * mapped (issue 13 §2). The process-wide instance already keeps the driver loaded; this makes that independent of
 * when the implementation decides to drop its own {@code VkInstance} (a lost device, an adapter released).
 *
 * <p>Linux only ({@code /proc/self/maps}); elsewhere {@link #mappedLibraries()} is empty and nothing is pinned.
 */
@SuppressWarnings("restricted") // opening native libraries is this class's job
final class DriverResidency {
    private static final Logger LOG = LoggerFactory.getLogger(DriverResidency.class);
    private static final Path MAPS = Path.of("/proc/self/maps");
    /** An executable mapping of a shared object: {@code addr perms offset dev inode path}. */
    private static final Pattern LIBRARY =
            Pattern.compile("^\\S+\\s+..x.\\s+\\S+\\s+\\S+\\s+\\d+\\s+(/\\S*\\.so(?:\\.\\d+)*)$");

    private DriverResidency() {}

    /** The shared objects with executable code mapped in this process now. */
    static Set<Path> mappedLibraries() {
        if (!Files.isReadable(MAPS)) {
            return Set.of();
        }
        Set<Path> libraries = new LinkedHashSet<>();
        try (Stream<String> lines = Files.lines(MAPS)) {
            lines.map(LIBRARY::matcher).filter(m -> m.matches()).forEach(m -> libraries.add(Path.of(m.group(1))));
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("cannot read {}: {}", MAPS, e.toString());
        }
        return libraries;
    }

    /**
     * Pins every library mapped now that was not in {@code before}: they were loaded meanwhile, by the
     * implementation's first adapter request. Returns what was pinned.
     */
    static List<Path> pinLoadedSince(Set<Path> before) {
        List<Path> pinned = new ArrayList<>();
        for (Path library : mappedLibraries()) {
            if (before.contains(library)) {
                continue;
            }
            try {
                SymbolLookup.libraryLookup(library, Arena.global()); // already loaded: only adds a reference
                pinned.add(library);
            } catch (IllegalArgumentException | IllegalCallerException e) {
                LOG.debug("could not pin {}: {}", library, e.getMessage());
            }
        }
        LOG.debug("driver libraries kept resident for the JVM's life: {}", pinned);
        return pinned;
    }
}
