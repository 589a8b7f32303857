package dev.graphrt.api;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A launch's arguments: buffers in order, and info words (shapes, lengths, scalars) that the core
 * uploads once into a cached info buffer and passes as the last argument. Immutable.
 */
public final class KernelArgs {
    private static final int[] NO_INFO = new int[0];

    private final List<Buffer> buffers;
    private final int[] info;

    private KernelArgs(List<Buffer> buffers, int[] info) {
        this.buffers = buffers;
        this.info = info;
    }

    /** The buffer arguments, in kernel parameter order. */
    public static KernelArgs of(Buffer... buffers) {
        Objects.requireNonNull(buffers, "buffers");
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] == null) { // the message built only then: arguments are often built for every launch
                throw new NullPointerException("buffers[" + i + "]");
            }
        }
        return new KernelArgs(List.of(buffers), NO_INFO);
    }

    /** The same buffers with these info words (replaces any earlier ones). */
    public KernelArgs info(int... words) {
        Objects.requireNonNull(words, "words");
        return new KernelArgs(buffers, words.clone());
    }

    /** Appends one float scalar to the info words (its raw bits). */
    public KernelArgs infoFloat(float value) {
        int[] grown = Arrays.copyOf(info, info.length + 1);
        grown[info.length] = Float.floatToRawIntBits(value);
        return new KernelArgs(buffers, grown);
    }

    public List<Buffer> buffers() {
        return buffers;
    }

    /** A copy of the info words. */
    public int[] infoWords() {
        return info.clone();
    }

    /** How many info words there are. */
    public int infoWordCount() {
        return info.length;
    }

    /**
     * Copies the info words to the start of {@code dst} (at least {@link #infoWordCount()} long): how the core reads
     * them on every launch into an array of its own that it reuses, so a launch allocates no copy.
     */
    public void copyInfoWords(int[] dst) {
        Objects.requireNonNull(dst, "dst");
        if (dst.length < info.length) {
            throw new IllegalArgumentException(
                    "dst: holds " + dst.length + " words, fewer than the " + info.length + " info words");
        }
        System.arraycopy(info, 0, dst, 0, info.length);
    }

    public boolean hasInfo() {
        return info.length > 0;
    }
}
