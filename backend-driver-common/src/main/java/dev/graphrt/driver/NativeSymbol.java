package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.util.Objects;

/**
 * One exported C function a backend binds: its name as the library exports it, its C signature as an FFM
 * descriptor, and whether the backend works without it. A backend lists its symbols as an enum implementing
 * this (the constant's name is the symbol, the constant holds its {@link Signature}), checked against the
 * vendor's header by a test.
 */
public interface NativeSymbol {
    /** The exported name, e.g. {@code cuMemAlloc_v2}. */
    String name();

    /** What the library must export under {@link #name()}. */
    Signature signature();

    /** The C signature, in FFM layouts. */
    default FunctionDescriptor descriptor() {
        return signature().descriptor();
    }

    /** Whether the library is unusable without it (an optional one binds to null when absent). */
    default boolean required() {
        return signature().required();
    }

    /**
     * A symbol's C signature, whether it is required, and whether it is a leaf.
     *
     * <p>A leaf returns at once, never blocks and never calls back into Java (it reads the driver's thread state,
     * as {@code cuCtxGetCurrent} does), so {@link NativeBinder} binds it as a critical downcall: no thread-state
     * transition, which is most of such a call's cost on a path taken every launch. Only such calls may be leaves: a
     * critical call holds off the JVM's safepoints (and so its garbage collector) while it runs.
     *
     * @param required   whether the library is unusable without it
     * @param descriptor the C signature, in FFM layouts
     * @param leaf       whether it returns at once and never blocks or calls back (bound as a critical downcall)
     */
    record Signature(boolean required, FunctionDescriptor descriptor, boolean leaf) {
        public Signature {
            Objects.requireNonNull(descriptor, "descriptor");
        }

        /** A signature that is not a leaf. */
        public Signature(boolean required, FunctionDescriptor descriptor) {
            this(required, descriptor, false);
        }

        /** A function returning a result code ({@code CUresult}, {@code hipError_t}: an int) with {@code arguments}. */
        public static Signature of(boolean required, MemoryLayout... arguments) {
            return new Signature(required, FunctionDescriptor.of(JAVA_INT, arguments));
        }

        /** As {@link #of}, for a leaf: a call that returns at once and never blocks or calls back. */
        public static Signature leaf(boolean required, MemoryLayout... arguments) {
            return new Signature(required, FunctionDescriptor.of(JAVA_INT, arguments), true);
        }
    }
}
