package dev.graphrt.api;

/**
 * The type of the elements a collective combines or moves, so a reduction knows what it adds and a count of elements
 * follows from a buffer's bytes. Buffers themselves are untyped bytes.
 */
public enum ElementType {
    /** IEEE 754 single precision ({@code float}). */
    FLOAT32(4),
    /** Two's-complement 32-bit integers ({@code int}). */
    INT32(4);

    private final int bytes;

    ElementType(int bytes) {
        this.bytes = bytes;
    }

    /** The bytes of one element. */
    public int bytes() {
        return bytes;
    }
}
