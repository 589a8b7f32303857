package dev.graphrt.driver;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.KernelCompiler;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A driver backend opened on one device: its raw device memory, its kernel compiler and non-blocking
 * {@link DriverStream}s whose captures become hardware graphs. The backend's own code only finds the device and
 * builds the parts; this class is the {@code Backend} for cuda and hip alike.
 *
 * <p>Closing runs the host releases that waited for a capture, frees the memory's upload staging, unloads the
 * compiler's modules, then the backend's own release (the CUDA primary context), each even when an earlier one
 * failed; the first failure is thrown with the others suppressed.
 */
public final class DriverBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(DriverBackend.class);

    /**
     * What a driver backend is made of, and its own last step at close (e.g. releasing its context). With a
     * {@code collectives} library the backend must declare {@code COLLECTIVES}, and without one must not.
     */
    public record Parts(
            int ordinal,
            DeviceInfo device,
            Set<Capability> capabilities,
            StreamDriver streams,
            DriverDeviceMemory memory,
            DriverKernelCompiler compiler,
            Runnable release,
            Optional<CollectiveLibrary> collectives) {
        public Parts {
            Objects.requireNonNull(device, "device");
            capabilities = Collections.unmodifiableSet(EnumSet.copyOf(capabilities));
            Objects.requireNonNull(streams, "streams");
            Objects.requireNonNull(memory, "memory");
            Objects.requireNonNull(compiler, "compiler");
            Objects.requireNonNull(release, "release");
            Objects.requireNonNull(collectives, "collectives");
            if (collectives.isPresent() != capabilities.contains(Capability.COLLECTIVES)) {
                throw new IllegalArgumentException("capabilities: COLLECTIVES is declared exactly when a collectives "
                        + "library is given; declared " + capabilities.contains(Capability.COLLECTIVES)
                        + ", library "
                        + collectives.map(CollectiveLibrary::origin).orElse("none"));
            }
        }
    }

    private final Parts parts;
    private final String name;
    private final CaptureAwareReleases releases;
    private final PinnedHostMemory pinned;
    private final AtomicLong streamIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Optional<DriverCollectives> collectives;

    public DriverBackend(Parts parts) {
        this.parts = Objects.requireNonNull(parts, "parts");
        this.name = parts.streams().names().backend();
        this.collectives = parts.collectives().map(library -> new DriverCollectives(name, library));
        this.releases = new CaptureAwareReleases(name);
        this.pinned = parts.memory().pinned();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceInfo device() {
        return parts.device();
    }

    @Override
    public Set<Capability> capabilities() {
        return parts.capabilities();
    }

    @Override
    public DeviceMemory memory() {
        return parts.memory();
    }

    @Override
    public KernelCompiler compiler() {
        return parts.compiler();
    }

    @Override
    public Optional<BackendCollectives> collectives() {
        return collectives.map(BackendCollectives.class::cast);
    }

    @Override
    public BackendStream openStream() {
        if (closed.get()) {
            throw new IllegalStateException("the " + name + " backend is closed");
        }
        return new DriverStream(streamIds.incrementAndGet(), parts.streams(), releases, pinned);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        collectives.ifPresent(DriverCollectives::close); // before the context goes: no late NCCL call after it
        RuntimeException failure = null;
        try {
            parts.streams().makeCurrent();
            releases.drain();
        } catch (RuntimeException e) {
            failure = e;
        }
        failure = Failures.attempt(failure, parts.memory()::close);
        failure = Failures.attempt(failure, parts.compiler()::close);
        failure = Failures.attempt(failure, parts.release());
        LOG.debug("{}: closed device {}", name, parts.ordinal());
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "DriverBackend[" + name + ", " + parts.device().name() + "]";
    }
}
