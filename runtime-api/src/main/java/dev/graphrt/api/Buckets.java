package dev.graphrt.api;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Pads a size up onto one of few bucket sizes, so a {@link GraphCache} keyed by the bucket serves many sizes with
 * few graphs: the next power of two ({@link #powersOfTwo()}) or the next of a given list ({@link #of}). A graph
 * replays the info words it recorded, so a step captured for a bucket that must handle every size up to it reads
 * the real size from a small buffer written before each run (and launches over the whole bucket). Immutable.
 */
public final class Buckets {
    private final int @Nullable [] sizes; // ascending; null for powers of two

    private Buckets(int @Nullable [] sizes) {
        this.sizes = sizes;
    }

    /** Buckets at every power of two. */
    public static Buckets powersOfTwo() {
        return new Buckets(null);
    }

    /** Buckets at {@code sizes} (positive, any order, duplicates ignored). */
    public static Buckets of(int... sizes) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("sizes must name at least one bucket");
        }
        int[] sorted = Arrays.stream(sizes).distinct().sorted().toArray();
        if (sorted[0] < 1) {
            throw new IllegalArgumentException("sizes must be positive, got " + sorted[0]);
        }
        return new Buckets(sorted);
    }

    /**
     * The smallest bucket that holds {@code size}.
     *
     * @throws IllegalArgumentException when {@code size} is not positive or is larger than the largest bucket
     */
    public int bucket(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be positive, was " + size);
        }
        if (sizes == null) {
            if (size > 1 << 30) {
                throw new IllegalArgumentException("size " + size + " is above the largest power-of-two bucket, 2^30");
            }
            return size == 1 ? 1 : Integer.highestOneBit(size - 1) << 1;
        }
        int at = Arrays.binarySearch(sizes, size);
        int index = at >= 0 ? at : -at - 1;
        if (index == sizes.length) {
            throw new IllegalArgumentException(
                    "size " + size + " is above the largest bucket, " + sizes[sizes.length - 1]);
        }
        return sizes[index];
    }

    @Override
    public String toString() {
        return sizes == null ? "Buckets[powers of two]" : "Buckets" + Arrays.toString(sizes);
    }
}
