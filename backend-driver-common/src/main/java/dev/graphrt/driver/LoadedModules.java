package dev.graphrt.driver;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The driver modules a hardware backend's kernel compiler loaded ({@code CUmodule}, {@code hipModule_t}),
 * one per distinct kernel source text, and whether the compiler is closed.
 *
 * <p>Why shared: the cuda and hip compilers cache and unload modules the same way; only the load and unload
 * calls differ, and those the compiler passes in. Not thread-safe: the compiler calls it under its own lock.
 */
public final class LoadedModules {
    private final String backend;
    private final Map<String, MemorySegment> modules = new HashMap<>();
    private boolean closed;

    /** The modules of the backend named {@code backend} (for the closed message). */
    public LoadedModules(String backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /** Throws {@link IllegalStateException} once {@link #markClosed()} ran. */
    public void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the " + backend + " backend is closed");
        }
    }

    /** The module loaded from {@code text}, loading it with {@code load} the first time (a failure caches nothing). */
    public MemorySegment module(String text, Function<String, MemorySegment> load) {
        MemorySegment module = modules.get(text);
        if (module == null) {
            module = load.apply(text);
            modules.put(text, module);
        }
        return module;
    }

    /** True exactly once: for the caller that then calls {@link #unloadAll}. */
    public boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    /** Unloads every module, each even when another failed; throws the first failure, the rest suppressed. */
    public void unloadAll(Consumer<MemorySegment> unload) {
        RuntimeException first = null;
        for (MemorySegment module : modules.values()) {
            try {
                unload.accept(module);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        modules.clear();
        if (first != null) {
            throw first;
        }
    }
}
