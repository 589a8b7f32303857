package dev.graphrt.core.lifecycle;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.graphrt.api.Capability;
import dev.graphrt.api.GraphKind;
import dev.graphrt.core.memory.CaptureMemorySession;
import dev.graphrt.core.memory.DropQueue;
import dev.graphrt.core.memory.MemoryManager;
import dev.graphrt.core.metadata.MetadataCache;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.SoftwareGraphs;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A lifecycle whose every collaborator is a Mockito mock, for checking hook order and the abort path. */
final class LifecycleFixture {
    final BackendStream backend = mock(BackendStream.class);
    /** The stream's capture support: {@link #driver} for a HARDWARE fixture, {@link #graphs} for a SOFTWARE one. */
    final DriverCapture driver = mock(DriverCapture.class);

    final SoftwareGraphs graphs = mock(SoftwareGraphs.class);
    final MemoryManager memory = mock(MemoryManager.class);
    final CaptureMemorySession session = mock(CaptureMemorySession.class);
    final MetadataCache metadata = mock(MetadataCache.class);
    final DropQueue drops = mock(DropQueue.class);
    final BackendGraph graph = mock(BackendGraph.class);
    final CaptureLifecycle lifecycle;

    LifecycleFixture(GraphKind kind) {
        EnumSet<Capability> caps = EnumSet.of(Capability.CAPTURE_MODE_RELAXED);
        when(backend.capture()).thenReturn(kind == GraphKind.HARDWARE ? driver : graphs);
        when(backend.drainErrors()).thenReturn(List.of());
        when(memory.openSession(1L, false)).thenReturn(session);
        when(session.doomed()).thenReturn(Optional.empty());
        when(driver.close()).thenReturn(graph);
        when(graphs.seal(org.mockito.ArgumentMatchers.any())).thenReturn(graph);
        AtomicLong ids = new AtomicLong();
        lifecycle = new CaptureLifecycle(
                1L,
                backend,
                new OperationPolicy("mock", caps, kind),
                memory,
                metadata,
                drops,
                ids::incrementAndGet,
                new AtomicLong(1L << 40)::incrementAndGet,
                java.time.Duration.ofSeconds(5));
    }
}
