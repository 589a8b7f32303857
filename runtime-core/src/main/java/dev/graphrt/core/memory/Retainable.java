package dev.graphrt.core.memory;

/**
 * Something an operation keeps alive while it uses it: a user buffer, retained by every graph whose recording
 * touched it and by the in-flight work of every stream that used it. Storage is freed when the last holder
 * (the user's handle included) lets go, so no kernel, copy or replay can touch memory another buffer owns.
 */
public interface Retainable {
    /** Takes one hold; false when the storage was already freed (the caller must refuse the operation). */
    boolean retain();

    /** Lets one hold go; the last one frees the storage. */
    void release();

    /** The bytes of storage a hold keeps alive (for accounting). */
    long retainedBytes();

    /** What a failed last release names in the stream's {@code ReleaseFailedException}. */
    default String releaseName() {
        return "a buffer's storage";
    }
}
