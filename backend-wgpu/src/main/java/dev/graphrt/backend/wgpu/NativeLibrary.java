package dev.graphrt.backend.wgpu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one {@code webgpu.h} library this JVM talks to. It is opened once (a native library cannot be unloaded,
 * and the downcall handles of {@link Wgpu} are static finals bound to it); asking for a different file later is
 * refused with a reason instead of silently mixing two implementations. What was opened is one immutable
 * {@link Loaded} record, published once: a reader sees either nothing or the whole of it.
 */
@SuppressWarnings("restricted") // raw native addresses and libraries are this class's job
final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Object LOCK = new Object();
    private static volatile Loaded loaded;

    private NativeLibrary() {}

    /**
     * The opened library.
     *
     * @param path        the file, absolute and normalised
     * @param lookup      its symbols
     * @param bindFailure why binding {@link Wgpu}'s functions failed, or {@code null} when they are all bound
     */
    record Loaded(Path path, SymbolLookup lookup, String bindFailure) {}

    /**
     * Opens {@code path} (once per JVM) and binds every function of {@link Wgpu}.
     *
     * @return {@code null} when the library is ready, otherwise why not
     */
    static String load(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        synchronized (LOCK) {
            if (!Files.isRegularFile(absolute)) {
                return absolute + " not found";
            }
            Loaded current = loaded;
            if (current != null) {
                return current.path().equals(absolute)
                        ? current.bindFailure()
                        : "another webgpu library is already loaded in this JVM (" + current.path()
                                + "); cannot also load " + absolute;
            }
            SymbolLookup opened;
            try {
                opened = SymbolLookup.libraryLookup(absolute, Arena.global());
            } catch (IllegalArgumentException | IllegalCallerException e) {
                return "cannot load " + absolute + ": " + e.getMessage();
            }
            if (opened.find("wgpuCreateInstance").isEmpty()) {
                return absolute + " does not export wgpuCreateInstance: not a webgpu.h library";
            }
            loaded = new Loaded(absolute, opened, null); // Wgpu's handles are bound from it right now
            String failure = bindAll(absolute);
            if (failure != null) {
                loaded = new Loaded(absolute, opened, failure);
            }
            return failure;
        }
    }

    /** Binds {@link Wgpu}'s handles against the library just published; answers why not, or {@code null}. */
    private static String bindAll(Path absolute) {
        try {
            Wgpu.bind();
            return null;
        } catch (LinkageError | IllegalStateException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return absolute + " does not match header generation " + WebGpuHeader.GENERATION + ": "
                    + cause.getMessage();
        }
    }

    /** The loaded library's path, or {@code null}. */
    static Path loadedPath() {
        Loaded current = loaded;
        return current == null ? null : current.path();
    }

    /** A downcall handle for {@code name}; only valid after {@link #load} opened the library. */
    static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        Loaded current = loaded;
        if (current == null) {
            throw new IllegalStateException("webgpu library not loaded");
        }
        MemorySegment symbol =
                current.lookup().find(name).orElseThrow(() -> new IllegalStateException("missing symbol " + name));
        return LINKER.downcallHandle(symbol, descriptor);
    }

    static Linker linker() {
        return LINKER;
    }
}
