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
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A lifecycle whose every collaborator is a Mockito mock, for checking hook order and the abort path. */
final class LifecycleFixture {
    final BackendStream backend = mock(BackendStream.class);
    final MemoryManager memory = mock(MemoryManager.class);
    final CaptureMemorySession session = mock(CaptureMemorySession.class);
    final MetadataCache metadata = mock(MetadataCache.class);
    final DropQueue drops = mock(DropQueue.class);
    final BackendGraph graph = mock(BackendGraph.class);
    final CaptureLifecycle lifecycle;

    LifecycleFixture(GraphKind kind) {
        EnumSet<Capability> caps = EnumSet.of(Capability.CAPTURE_MODE_RELAXED);
        if (kind == GraphKind.HARDWARE) {
            caps.add(Capability.HARDWARE_GRAPH);
        }
        when(backend.drainErrors()).thenReturn(List.of());
        when(memory.openSession(1L, false)).thenReturn(session);
        when(session.doomed()).thenReturn(Optional.empty());
        when(backend.closeCapture()).thenReturn(graph);
        when(backend.sealRecording(org.mockito.ArgumentMatchers.any())).thenReturn(graph);
        AtomicLong ids = new AtomicLong();
        lifecycle = new CaptureLifecycle(1L, backend, new OperationPolicy("mock", caps, kind), memory, metadata, drops,
                ids::incrementAndGet, new AtomicLong(1L << 40)::incrementAndGet, java.time.Duration.ofSeconds(5));
    }
}
