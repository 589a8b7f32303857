package dev.graphrt.driver;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs host-side releases (graph destruction, {@code cuMemFreeHost}, {@code hipHostFree}) of one
 * hardware-graph backend, but never while one of its streams captures: such calls are "potentially
 * unsafe" during a capture and may invalidate it ({@code hipHostFree} even synchronises the device).
 * Releases requested during a capture wait until the last capture of the backend ended.
 *
 * <p>Why here and not in the core: the core already defers frees while recording; this guards the
 * backend's own host memory (graph-owned write copies, staging buffers), which the core does not see.
 */
public final class CaptureAwareReleases {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureAwareReleases.class);

    private final String backend;
    private final AtomicInteger activeCaptures = new AtomicInteger();
    private final ConcurrentLinkedQueue<Runnable> pending = new ConcurrentLinkedQueue<>();

    /** Releases of the backend named {@code backend} (for log messages). */
    public CaptureAwareReleases(String backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /** Call before the driver begins a capture. */
    public void captureStarting() {
        activeCaptures.incrementAndGet();
    }

    /** Call after the driver capture ended (sealed or aborted); runs waiting releases when none is left. */
    public void captureEnded() {
        if (activeCaptures.decrementAndGet() <= 0) {
            activeCaptures.set(0);
            drain();
        }
    }

    /** Runs {@code release} now, or after the captures in progress ended (then failures are only logged). */
    public void release(Runnable release) {
        if (activeCaptures.get() > 0) {
            pending.add(release);
            return;
        }
        release.run();
    }

    /** Releases waiting for a capture to end. */
    public int pendingCount() {
        return pending.size();
    }

    /** Runs every waiting release now (backend close). */
    public void drain() {
        Runnable release;
        while ((release = pending.poll()) != null) {
            try {
                release.run();
            } catch (RuntimeException e) {
                LOG.warn("{}: a deferred release failed", backend, e);
            }
        }
    }
}
