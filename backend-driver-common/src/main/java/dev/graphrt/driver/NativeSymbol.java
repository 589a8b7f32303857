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
     * A symbol's C signature and whether it is required.
     *
     * @param required   whether the library is unusable without it
     * @param descriptor the C signature, in FFM layouts
     */
    record Signature(boolean required, FunctionDescriptor descriptor) {
        public Signature {
            Objects.requireNonNull(descriptor, "descriptor");
        }

        /** A function returning a result code ({@code CUresult}, {@code hipError_t}: an int) with {@code arguments}. */
        public static Signature of(boolean required, MemoryLayout... arguments) {
            return new Signature(required, FunctionDescriptor.of(JAVA_INT, arguments));
        }
    }
}
