package dev.graphrt.core.runtime;

import java.lang.foreign.MemorySegment;

/**
 * Host memory a caller hands to a read or a write is the caller's argument: a segment whose arena is closed, or a
 * read-only one a read would write into, is refused at the call naming the argument, before anything is queued, so
 * the stream stays healthy (the backend would otherwise fail later, blamed on the stream).
 */
final class HostSegments {
    private HostSegments() {}

    static void checkReadable(MemorySegment segment, String argument) {
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException(argument + ": the host segment's arena is closed");
        }
    }

    static void checkWritable(MemorySegment segment, String argument) {
        checkReadable(segment, argument);
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException(argument + ": the host segment is read-only, and a read writes into it");
        }
    }
}
