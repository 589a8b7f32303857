package dev.graphrt.spi;

import dev.graphrt.api.GraphKind;
import java.util.List;

/**
 * What the core hands a {@link GraphKind#SOFTWARE} backend at {@code endCapture}: every launch of the
 * window in order. The backend seals it once ({@link BackendStream#sealRecording}) and replays the sealed
 * form in one submission.
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
