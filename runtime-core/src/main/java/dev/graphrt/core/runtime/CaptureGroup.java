package dev.graphrt.core.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The streams one capture spans (fork/join, issue 16): the origin that began it and the streams that joined it by
 * waiting for an event recorded in it. It counts each member's recorded operations and remembers every wait, so
 * {@code endCapture} can tell, before the driver would (904, unjoined), whether each member's work is joined back
 * into the origin: a member's work up to operation n is joined when a stream whose own work is joined at that
 * point waited for an event the member recorded at or after n. Guarded by the origin's lock.
 */
final class CaptureGroup {
    /** A wait inside the capture: {@code waiter}, at its operation {@code waiterOps}, for {@code source} at {@code sourceOps}. */
    private record Wait(StreamPeer waiter, int waiterOps, StreamPeer source, int sourceOps) {}

    private final StreamPeer origin;
    private final Set<StreamPeer> members = new LinkedHashSet<>();
    private final Map<StreamPeer, Integer> ops = new HashMap<>();
    private final List<Wait> waits = new ArrayList<>();
    private boolean ended;

    CaptureGroup(StreamPeer origin) {
        this.origin = origin;
    }

    StreamPeer origin() {
        return origin;
    }

    /** The streams that joined (the origin excluded), in joining order. */
    Set<StreamPeer> members() {
        return members;
    }

    boolean contains(StreamPeer stream) {
        return stream == origin || members.contains(stream);
    }

    void join(StreamPeer member) {
        members.add(member);
    }

    /** Counts one recorded operation of {@code stream}. */
    void operation(StreamPeer stream) {
        ops.merge(stream, 1, Integer::sum);
    }

    /** Operations {@code stream} recorded so far: where an event it records now stands. */
    int operations(StreamPeer stream) {
        return ops.getOrDefault(stream, 0);
    }

    /**
     * {@code waiter} waited for an event of this group that {@code source} recorded after {@code position} of its
     * operations: the wait is one of the waiter's operations.
     */
    void waited(StreamPeer waiter, StreamPeer source, int position) {
        operation(waiter);
        waits.add(new Wait(waiter, operations(waiter), source, position));
    }

    /** The first member whose work is not joined back into the origin, if any. */
    Optional<StreamPeer> firstUnjoined() {
        for (StreamPeer member : members) {
            if (!joined(member, operations(member), new HashSet<>())) {
                return Optional.of(member);
            }
        }
        return Optional.empty();
    }

    private boolean joined(StreamPeer stream, int upTo, Set<StreamPeer> visiting) {
        if (stream == origin) {
            return true;
        }
        if (!visiting.add(stream)) {
            return false;
        }
        for (Wait wait : waits) {
            if (wait.source() == stream
                    && wait.sourceOps() >= upTo
                    && joined(wait.waiter(), wait.waiterOps(), visiting)) {
                return true;
            }
        }
        visiting.remove(stream);
        return false;
    }

    /** The capture ended (sealed, cancelled or aborted): its events can no longer be waited for. */
    void end() {
        ended = true;
    }

    boolean ended() {
        return ended;
    }
}
