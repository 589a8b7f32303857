package dev.graphrt.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.KernelCompiler;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The graph kind is said once, by the capture support a backend's streams offer; the core derives it. */
class GraphKindFromCaptureSupportTest {

    @Test
    void the_runtime_reports_the_kind_its_backends_streams_offer_and_closes_the_stream_it_asked() {
        FakeBackend software = new FakeBackend();
        FakeBackend hardware = new FakeBackend(GraphKind.HARDWARE, EnumSet.noneOf(Capability.class));
        try (CoreRuntime soft = new CoreRuntime(software, RuntimeOptions.defaults());
                CoreRuntime hard = new CoreRuntime(hardware, RuntimeOptions.defaults())) {
            assertThat(soft.graphKind()).isEqualTo(GraphKind.SOFTWARE);
            assertThat(hard.graphKind()).isEqualTo(GraphKind.HARDWARE);
            assertThat(software.openStreams.get())
                    .as("the stream asked when the runtime opened is closed")
                    .isZero();
            assertThat(hardware.openStreams.get()).isZero();
        }
    }

    @Test
    void a_stream_offering_another_kind_than_the_first_is_refused_and_closed() {
        FakeBackend real = new FakeBackend();
        BackendStream odd = mock(BackendStream.class);
        when(odd.capture()).thenReturn(mock(DriverCapture.class));
        AtomicInteger opened = new AtomicInteger();
        Backend backend = new Backend() {
            @Override
            public String name() {
                return "fickle";
            }

            @Override
            public DeviceInfo device() {
                return real.device();
            }

            @Override
            public Set<Capability> capabilities() {
                return real.capabilities();
            }

            @Override
            public DeviceMemory memory() {
                return real.memory();
            }

            @Override
            public KernelCompiler compiler() {
                return real.compiler();
            }

            /** Software graphs for the first two streams (the runtime's question and one for the user), then not. */
            @Override
            public BackendStream openStream() {
                return opened.incrementAndGet() <= 2 ? real.openStream() : odd;
            }

            @Override
            public void close() {
                real.close();
            }
        };
        try (CoreRuntime runtime = new CoreRuntime(backend, RuntimeOptions.defaults())) {
            GpuStream first = runtime.openStream();
            assertThatThrownBy(runtime::openStream)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("backend fickle")
                    .hasMessageContaining("offers HARDWARE graphs")
                    .hasMessageContaining("first stream offered SOFTWARE");
            verify(odd).close();
            first.close();
        }
    }
}
