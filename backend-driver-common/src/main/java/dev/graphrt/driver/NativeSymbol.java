package dev.graphrt.driver;

import java.lang.foreign.FunctionDescriptor;

/**
 * One exported C function a backend binds: its name as the library exports it, its C signature as an FFM
 * descriptor, and whether the backend works without it. A backend lists its symbols as an enum implementing
 * this (the constant's name is the symbol), checked against the vendor's header by a test.
 */
public interface NativeSymbol {
    /** The exported name, e.g. {@code cuMemAlloc_v2}. */
    String name();

    /** The C signature, in FFM layouts. */
    FunctionDescriptor descriptor();

    /** Whether the library is unusable without it (an optional one binds to null when absent). */
    boolean required();
}
