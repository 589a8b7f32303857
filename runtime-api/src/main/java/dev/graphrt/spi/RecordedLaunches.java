package dev.graphrt.spi;

import java.util.List;

/**
 * What the core records of a capture window: every launch in order. It is what the core hands a
 * {@link SoftwareGraphs} backend at {@code endCapture}, to seal once ({@link SoftwareGraphs#seal}) and replay in one
 * submission, and what a {@link DriverCapture} backend is told a rebind changes ({@link DriverCapture#rebind}).
 */
public record RecordedLaunches(List<RecordedLaunch> launches) implements BackendGraph {
    public RecordedLaunches {
        launches = List.copyOf(launches);
    }

    @Override
    public int nodeCount() {
        return launches.size();
    }
}
