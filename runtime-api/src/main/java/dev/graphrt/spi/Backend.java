package dev.graphrt.spi;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import java.util.Optional;
import java.util.Set;

/**
 * An opened backend on one device. It supplies raw storage, a compiler and streams; the core owns every
 * policy above them (pools, capture ordering, metadata caching). A backend never calls into the core.
 */
public interface Backend extends AutoCloseable {
    String name();

    DeviceInfo device();

    /** The honest list of what this backend can do beyond the base contract. */
    Set<Capability> capabilities();

    DeviceMemory memory();

    KernelCompiler compiler();

    /**
     * A new stream that never synchronises implicitly with other streams (CUDA: non-blocking). Its
     * {@link BackendStream#capture()} says how this backend's graphs are made, the same for every stream.
     */
    BackendStream openStream();

    /**
     * The backend's collectives, present exactly when it declares {@code COLLECTIVES}; the core asks once, when the
     * runtime opens. The default has none.
     */
    default Optional<BackendCollectives> collectives() {
        return Optional.empty();
    }

    /** Releases the device. The core has already closed every stream and freed every allocation. */
    @Override
    void close();
}
