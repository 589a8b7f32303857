package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.GraphKind;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.SoftwareGraphs;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The graph kind comes from a probe stream, which is closed on every path; a software window forbids nothing. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class GraphKindsTest {
    @Test
    void a_backend_whose_streams_offer_software_graphs_makes_software_graphs_and_its_probe_stream_is_closed() {
        Backend backend = mock(Backend.class);
        BackendStream probe = mock(BackendStream.class);
        when(backend.openStream()).thenReturn(probe);
        when(probe.capture()).thenReturn(mock(SoftwareGraphs.class));

        assertThat(GraphKinds.of(backend)).isEqualTo(GraphKind.SOFTWARE);
        verify(probe).close();
        assertThat(GraphKinds.of(mock(DriverCapture.class))).isEqualTo(GraphKind.HARDWARE);
    }

    @Test
    void a_probe_whose_capture_support_fails_is_closed_and_a_failing_close_is_kept_beside_the_failure() {
        Backend backend = mock(Backend.class);
        BackendStream probe = mock(BackendStream.class);
        when(backend.openStream()).thenReturn(probe);
        when(probe.capture()).thenThrow(new IllegalStateException("no capture support"));
        doThrow(new IllegalStateException("close failed")).when(probe).close();

        Throwable thrown = catchThrowable(() -> GraphKinds.of(backend));

        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("no capture support");
        assertThat(thrown.getSuppressed())
                .singleElement()
                .extracting(Throwable::getMessage)
                .isEqualTo("close failed");
        verify(probe).close();
    }

    @Test
    void a_software_window_never_forbids_device_calls_from_another_thread() {
        WindowCapture software = WindowCapture.of(mock(SoftwareGraphs.class));

        assertThat(software.forbidsDeviceCallsFrom(new Thread(() -> {}), CaptureMode.GLOBAL, Thread.currentThread()))
                .isFalse();
        assertThat(software.kind()).isEqualTo(GraphKind.SOFTWARE);
    }

    @Test
    void aborting_a_driver_window_aborts_the_driver_capture_it_wraps() {
        DriverCapture driver = mock(DriverCapture.class);

        WindowCapture.of(driver).abort();

        verify(driver).abort();
    }
}
