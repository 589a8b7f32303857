package dev.graphrt.core.runtime;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.GraphRTException;
import dev.graphrt.api.ReplayFailedException;
import dev.graphrt.api.WaitTimeoutException;
import dev.graphrt.spi.OutOfBoundsAccess;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The graphs one stream replayed since its last host synchronisation. Replays enqueue and return, so their
 * errors surface at the next sync or read (DESIGN.md section 3); this names the graphs in that error, as a
 * {@link ReplayFailedException}. A timeout is not blamed on them: the work did not fail, it did not finish.
 * Not thread-safe: the owning stream serialises calls.
 */
final class ReplayBlame {
    /** More replays than this are all named by the first ones: the message stays short. */
    private static final int MAX_TRACKED = 8;

    private final long streamId;
    private final CheckedWork checked;
    private final Set<Long> replayedSinceSync = new LinkedHashSet<>();

    /** @param checked names the buffer of an out-of-bounds access a backend stopped */
    ReplayBlame(long streamId, CheckedWork checked) {
        this.streamId = streamId;
        this.checked = checked;
    }

    /** Whether graphs were replayed since the last host synchronisation (their errors may still be coming). */
    boolean pending() {
        return !replayedSinceSync.isEmpty();
    }

    void replayed(long graphId) {
        if (replayedSinceSync.size() < MAX_TRACKED) {
            replayedSinceSync.add(graphId);
        }
    }

    /** Runs a host synchronisation; a failure of it names the graphs replayed since the previous one. */
    void hostSync(Runnable sync) {
        try {
            sync.run();
        } catch (RuntimeException raw) {
            String operation = "stream #" + streamId + " host synchronisation";
            GraphRTException failure = raw instanceof GraphRTException known
                    ? known
                    : raw instanceof OutOfBoundsAccess outside
                            ? checked.overrun(operation, outside)
                            : new DriverException(operation, raw);
            if (replayedSinceSync.isEmpty() || failure instanceof WaitTimeoutException) {
                throw failure;
            }
            List<String> graphs =
                    replayedSinceSync.stream().map(g -> "graph #" + g).toList();
            replayedSinceSync.clear();
            throw new ReplayFailedException(
                    "stream #" + streamId + ": work failed after replays of " + graphs + ": " + failure.getMessage(),
                    failure);
        }
        replayedSinceSync.clear();
    }
}
