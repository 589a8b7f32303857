package dev.graphrt.driver;

/**
 * Names GraphRT's phases on a profiler's timeline (NVTX on cuda): {@link DriverStream} opens a range around
 * prepare, capture, replay and synchronize, so Nsight Systems shows which kernels a capture or a replay holds.
 *
 * <p>Ranges are process-wide start/end pairs, not a thread's push/pop stack, because a capture may end on another
 * thread than the one that began it. A backend without a profiler library uses {@link #NONE}, which costs a field
 * read; {@link #range} must never throw, since a marker is never worth failing the work it marks.
 */
public interface PhaseMarkers {
    /** No profiler: every range is the same no-op. */
    PhaseMarkers NONE = name -> Range.NONE;

    /** Starts a range called {@code name}; the caller ends it exactly once. */
    Range range(String name);

    /** An open range. */
    interface Range extends AutoCloseable {
        /** The range of {@link #NONE}. */
        Range NONE = () -> {};

        /** Ends the range; never throws. */
        @Override
        void close();
    }
}
