package dev.graphrt.core.runtime;

import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.spi.Fence;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which capture, and which warm-up, a stream takes part in beyond its own (fork/join): as the origin that began it,
 * or as a member that joined it by waiting for one of its events. While joined, the stream's work is recorded by the
 * origin's lifecycle into the origin's memory, under the origin's lock (taken after the member's, never before). A
 * stream that waits for an event of another stream's warm-up takes part in that warm-up the same way: its
 * allocations are primed in the origin's window, and the origin's pass ends wait for its work.
 */
final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final StreamPeer self;
    private final OperationPolicy policy;
    /** The capture this stream takes part in beyond its own; null otherwise. Written under the origin's lock. */
    private volatile @Nullable CaptureGroup group;
    /** The stream whose warm-up this stream joined; null otherwise, and cleared when that warm-up ends. */
    private volatile @Nullable StreamPeer warmupOrigin;
    /** The streams that joined this stream's warm-up (written under this stream's lock). */
    private final Set<StreamPeer> warmupMembers = ConcurrentHashMap.newKeySet();

    Membership(StreamPeer self, OperationPolicy policy) {
        this.self = self;
        this.policy = policy;
    }

    // ---- where the stream's work goes ---------------------------------------------------------------

    /** Whether this stream joined another stream's capture (it is not that capture's origin). */
    boolean isMember() {
        return joinedOrigin() != null;
    }

    /** The origin of the capture this stream joined, or null (one read of the group). */
    @Nullable
    StreamPeer joinedOrigin() {
        CaptureGroup joined = group;
        return joined != null && joined.origin() != self ? joined.origin() : null;
    }

    /** The state the operation table sees: CAPTURE while joined to another stream's capture. */
    CaptureState state() {
        return joinedOrigin() != null ? CaptureState.CAPTURE : self.lifecycle().current();
    }

    /** The lifecycle that records this stream's work: the origin's while joined. */
    CaptureLifecycle recording() {
        StreamPeer origin = joinedOrigin();
        return origin != null ? origin.lifecycle() : self.lifecycle();
    }

    /** The memory that serves this stream's work: the origin's while joined (its window, info cache, holds). */
    StreamMemory recordingMemory() {
        StreamPeer origin = joinedOrigin();
        return origin != null ? origin.memory() : self.memory();
    }

    /**
     * While joined, takes the origin's lock too (its recording is shared; always after this stream's own); returns
     * the origin to unlock, or null when not joined, also when the capture ended while the lock was awaited.
     */
    @Nullable
    StreamPeer lockOrigin() {
        CaptureGroup joined = group;
        if (joined == null || joined.origin() == self) {
            return null;
        }
        StreamPeer origin = joined.origin();
        origin.lock().lock();
        if (group != joined) {
            origin.lock().unlock();
            return null;
        }
        return origin;
    }

    void unlockOrigin(@Nullable StreamPeer origin) {
        if (origin != null) {
            origin.lock().unlock();
        }
    }

    /**
     * The member rule, in one place: a joined stream's write, copy or replay cannot be recorded on its own driver
     * stream, so it is rejected lazily on the origin, whose endCapture names it.
     */
    void rejectOnOrigin(StreamPeer origin, String operation) {
        origin.lifecycle()
                .rejectLazily(operation + " on stream #" + self.id() + ", which joined this capture: only "
                        + "the capture's origin stream #" + origin.id() + " records writes, copies and replays");
    }

    /** Counts one recorded operation for the fork/join bookkeeping. */
    void countOperation() {
        CaptureGroup joined = group;
        if (joined != null) {
            joined.operation(self);
        }
    }

    void refuseIfMember(String operation) {
        StreamPeer origin = joinedOrigin();
        if (origin != null) {
            throw new GraphStateException(operation + ": stream #" + self.id() + " joined stream #" + origin.id()
                    + "'s capture; only that stream begins, ends or cancels it");
        }
    }

    // ---- the group of this stream's own capture --------------------------------------------------------

    @Nullable
    CaptureGroup group() {
        return group;
    }

    /** This stream's own capture begins to span streams (an event recorded in it): its group, made once. */
    CaptureGroup ownGroup() {
        if (group == null) {
            group = new CaptureGroup(self);
        }
        return group;
    }

    /** Joins {@code target}'s capture (under the origin's lock). */
    void join(CaptureGroup target) {
        target.join(self);
        group = target;
        LOG.debug(
                "stream #{} joined stream #{}'s capture",
                self.id(),
                target.origin().id());
    }

    /**
     * Refuses to end a capture while a stream that joined it has work not joined back, before the driver would
     * (904): nothing changes, and the user can join it back (record on it, waitFor here) and end again. A member
     * its user closed is joined back here, since nobody else can.
     */
    void checkJoinedBack(String operation) {
        CaptureGroup own = group;
        if (own == null) {
            return;
        }
        for (StreamPeer member : own.members()) {
            if (member.closeDeferred()) {
                joinBack(member);
            }
        }
        own.firstUnjoined().ifPresent(member -> {
            throw new CaptureRejectedException(operation + ": stream #" + member.id() + " joined this capture and has "
                    + "work not joined back into stream #" + self.id() + "; record an event on it and make stream #"
                    + self.id() + " wait for it (waitFor), then end the capture again: the capture is intact");
        });
    }

    /** Joins {@code member}'s work back into this origin's capture: an event on it, which this stream waits for. */
    private void joinBack(StreamPeer member) {
        CaptureGroup own = Objects.requireNonNull(group, "only an origin with its capture's group joins back");
        Fence fence = captureEventFence(member);
        int position = own.operations(member);
        if (fence != null && !self.backendStream().waitFor(member.backendStream(), fence)) {
            throw new IllegalStateException("stream #" + self.id() + " could not wait for stream #" + member.id());
        }
        own.waited(self, member, position);
    }

    /** The fence an event recorded inside a capture carries: a driver event, or none where the position suffices. */
    @Nullable
    Fence captureEventFence(StreamPeer stream) {
        return switch (policy.captureEvent()) {
            case DRIVER_EVENT -> stream.backendStream().recordFence();
            case POSITION -> null;
        };
    }

    /** Before a capture is abandoned: every member is joined back, so the driver can end it (no 904). */
    void joinBackForAbort() {
        CaptureGroup own = group;
        if (own == null || own.origin() != self) {
            return;
        }
        Optional<StreamPeer> unjoined;
        while ((unjoined = own.firstUnjoined()).isPresent()) {
            try {
                joinBack(unjoined.get());
            } catch (RuntimeException failure) {
                LOG.warn(
                        "stream #{}: joining stream #{} back before abandoning the capture failed: {}",
                        self.id(),
                        unjoined.get().id(),
                        failure.toString());
                return;
            }
        }
    }

    /** The capture ended: its members leave it and its events can no longer be waited for. */
    void dissolveGroup() {
        CaptureGroup own = group;
        if (own == null || own.origin() != self) {
            return;
        }
        own.end();
        for (StreamPeer member : own.members()) {
            member.leaveCapture();
        }
        group = null;
    }

    // ---- fork/join in a warm-up ------------------------------------------------------------------------

    /** The warm-up an event recorded now belongs to: this stream's own, the one it joined, or none. */
    @Nullable
    StreamPeer warmupOf(boolean warmingUp) {
        return warmingUp ? self : warmupOrigin;
    }

    @Nullable
    StreamPeer warmupOrigin() {
        return warmupOrigin;
    }

    /**
     * This stream waited for an event of {@code warmup}'s warm-up: it takes part in that warm-up (called under this
     * stream's lock; the origin's is taken after it). Only a stream on its own joins.
     */
    void joinWarmup(@Nullable StreamPeer warmup) {
        if (warmup == null
                || warmup == self
                || warmupOrigin == warmup
                || group != null
                || !policy.mayJoinAnotherCapture(self.lifecycle().current())) {
            return;
        }
        warmup.lock().lock();
        try {
            if (policy.joinsWarmup(warmup.lifecycle().current()) && !warmup.isClosed()) {
                warmupOrigin = warmup;
                warmup.addWarmupMember(self);
                LOG.debug("stream #{} joined stream #{}'s warm-up", self.id(), warmup.id());
            }
        } finally {
            warmup.lock().unlock();
        }
    }

    /** The capture this stream joined ended (its origin dissolved the group): it is on its own again. */
    void leaveCapture() {
        group = null;
    }

    /** {@code member} joined this stream's warm-up (under this stream's lock). */
    void addWarmupMember(StreamPeer member) {
        warmupMembers.add(member);
    }

    /** The warm-up this stream joined ended. */
    void leaveWarmup() {
        warmupOrigin = null;
    }

    /** The streams that joined this stream's warm-up, as they are now. */
    List<StreamPeer> warmupMembers() {
        return List.copyOf(warmupMembers);
    }

    /** This stream's warm-up ended (the capture began, or the window closed): its members leave it. */
    void endWarmup() {
        for (StreamPeer member : warmupMembers) {
            member.leaveWarmup();
        }
        warmupMembers.clear();
    }
}
