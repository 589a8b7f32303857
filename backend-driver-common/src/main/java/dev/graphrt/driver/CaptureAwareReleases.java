package dev.graphrt.driver;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs host-side releases (graph destruction, {@code cuMemFreeHost}, {@code hipHostFree}) of one
 * hardware-graph backend, but never while one of its streams captures: such calls are "potentially
 * unsafe" during a capture and may invalidate it ({@code hipHostFree} even synchronises the device).
 * Releases requested during a capture wait until the last capture of the backend ended.
 *
 * <p>Why one lock around the check and the release: checking "no capture runs" and then releasing would let
 * another thread begin a capture in between, and the release would then run inside that capture. Here a
 * release runs while holding the lock, so a capture that begins meanwhile waits until the release finished;
 * a release asked for while a capture runs is queued instead. Releases are rare and short (a free, a graph
 * destroy), so waiting for one costs a capture's begin little.
 *
 * <p>Why here and not in the core: the core already defers frees while recording; this guards the
 * backend's own host memory (graph-owned write copies, staging buffers), which the core does not see.
 */
public final class CaptureAwareReleases {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureAwareReleases.class);

    private final String backend;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>(); // guarded by lock
    private int activeCaptures; // guarded by lock

    /** Releases of the backend named {@code backend} (for log messages). */
    public CaptureAwareReleases(String backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /** Call before the driver begins a capture; waits while a release runs. */
    public void captureStarting() {
        lock.lock();
        try {
            activeCaptures++;
        } finally {
            lock.unlock();
        }
    }

    /** Call after the driver capture ended (sealed or aborted); runs waiting releases when none is left. */
    public void captureEnded() {
        lock.lock();
        try {
            if (activeCaptures == 0) {
                // More ends than starts: a caller's bookkeeping is wrong. Clamping would hide it and let a later
                // release run inside a capture that is still going; report it instead, counting nothing.
                throw new IllegalStateException("captureEnded without a matching captureStarting: the driver "
                        + "layer's capture count went below zero");
            }
            activeCaptures--;
            if (activeCaptures == 0) {
                drain();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code release} now, or after the captures in progress ended (then failures are only logged). */
    public void release(Runnable release) {
        Objects.requireNonNull(release, "release");
        lock.lock();
        try {
            if (activeCaptures > 0) {
                pending.addLast(release);
                return;
            }
            release.run();
        } finally {
            lock.unlock();
        }
    }

    /** Releases waiting for a capture to end. */
    public int pendingCount() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Runs every waiting release now (backend close). */
    public void drain() {
        lock.lock();
        try {
            Runnable release;
            while ((release = pending.pollFirst()) != null) {
                try {
                    release.run();
                } catch (RuntimeException e) {
                    LOG.warn("{}: a deferred release failed", backend, e);
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
