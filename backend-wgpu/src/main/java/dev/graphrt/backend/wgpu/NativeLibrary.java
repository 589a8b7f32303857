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
 * refused with a reason instead of silently mixing two implementations.
 */
@SuppressWarnings("restricted") // raw native addresses and libraries are this class's job
final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Object LOCK = new Object();
    private static volatile Path loadedPath;
    private static volatile SymbolLookup lookup;
    private static volatile String bindFailure;

    private NativeLibrary() {
    }

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
            if (loadedPath != null) {
                return loadedPath.equals(absolute) ? bindFailure
                        : "another webgpu library is already loaded in this JVM (" + loadedPath + "); cannot also load "
                        + absolute;
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
            lookup = opened;
            loadedPath = absolute;
            try {
                Wgpu.bind();
            } catch (LinkageError | IllegalStateException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                bindFailure = absolute + " does not match header generation " + WebGpuHeader.GENERATION + ": "
                        + cause.getMessage();
            }
            return bindFailure;
        }
    }

    /** The loaded library's path, or {@code null}. */
    static Path loadedPath() {
        return loadedPath;
    }

    /** A downcall handle for {@code name}; only valid after {@link #load} succeeded. */
    static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        SymbolLookup current = lookup;
        if (current == null) {
            throw new IllegalStateException("webgpu library not loaded");
        }
        MemorySegment symbol = current.find(name)
                .orElseThrow(() -> new IllegalStateException("missing symbol " + name));
        return LINKER.downcallHandle(symbol, descriptor);
    }

    static Linker linker() {
        return LINKER;
    }
}
