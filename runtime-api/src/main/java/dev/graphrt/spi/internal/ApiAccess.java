package dev.graphrt.spi.internal;

import dev.graphrt.api.KernelArgs;
import java.util.Objects;

/**
 * What the core reads of user-API objects without a copy. Not API: this package is exported to the core's module
 * ({@code dev.graphrt.core}) alone; on the class path nothing enforces that, and nothing but the core may call it.
 *
 * <p>A launch's info words are the core's hottest read: it looks them up in its metadata cache, which copies them
 * once when it caches a new content, so the eager path must not copy them per launch. {@link KernelArgs} hands
 * its array over through an accessor it registers here when it is initialised (the JDK's own pattern for
 * reaching a package's internals from another package without a public accessor).
 */
public final class ApiAccess {

    /** Reads a {@link KernelArgs}' info words, as the array it holds. */
    @FunctionalInterface
    public interface KernelArgsAccess {
        int[] infoWords(KernelArgs args);
    }

    private static volatile KernelArgsAccess kernelArgs;

    private ApiAccess() {
    }

    /** Called once, by {@link KernelArgs}'s static initialiser; refused from anywhere else. */
    public static void register(KernelArgsAccess access) {
        Objects.requireNonNull(access, "access");
        Class<?> caller = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass();
        if (caller != KernelArgs.class || kernelArgs != null) {
            throw new IllegalStateException("only KernelArgs registers its accessor, once; " + caller + " may not");
        }
        kernelArgs = access;
    }

    /** {@code args}' info words without a copy; the caller must never modify the array. */
    public static int[] infoWords(KernelArgs args) {
        KernelArgsAccess access = kernelArgs;
        if (access == null) { // only before this thread has seen KernelArgs initialised
            initialise(KernelArgs.class);
            access = kernelArgs;
        }
        return access.infoWords(args);
    }

    private static void initialise(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
