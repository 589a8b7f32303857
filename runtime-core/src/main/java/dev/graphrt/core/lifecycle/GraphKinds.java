package dev.graphrt.core.lifecycle;

import dev.graphrt.api.GraphKind;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.CaptureSupport;

/**
 * The graph kind, which a backend says once: by the capture support its streams offer ({@code DriverCapture}:
 * HARDWARE, {@code SoftwareGraphs}: SOFTWARE). The core derives it here and nowhere else.
 */
public final class GraphKinds {
    private GraphKinds() {}

    /** The kind of graphs {@code support} makes. */
    public static GraphKind of(CaptureSupport support) {
        return WindowCapture.of(support).kind();
    }

    /**
     * The kind of {@code backend}'s graphs, for what the core decides before any stream of its own exists (the pools,
     * the operation table, a device listing): asked of a stream opened for the purpose and closed at once, since every
     * stream of a backend offers the same kind. A stream that then offers another is refused when it opens.
     */
    public static GraphKind of(Backend backend) {
        BackendStream probe = backend.openStream();
        GraphKind kind;
        try {
            kind = of(probe.capture());
        } catch (RuntimeException | Error failure) {
            try {
                probe.close();
            } catch (RuntimeException later) {
                failure.addSuppressed(later);
            }
            throw failure;
        }
        probe.close();
        return kind;
    }
}
