package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import dev.graphrt.api.CaptureInvalidatedException;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureRejectedException;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphNotRelaunchableException;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.api.UnsupportedCapabilityException;
import dev.graphrt.spi.RecordedLaunches;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

class CaptureLifecycleTest {

    private static void assertRecapturable(LifecycleFixture f) {
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
        f.lifecycle.prepare();
        f.lifecycle.beginCapture(CaptureOptions.defaults());
        f.lifecycle.endCapture();
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
    }

    @Nested
    class Hook_order {
        @Test
        void prepare_drains_errors_then_arms_pools_then_switches_the_cache_then_calls_on_prepare() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            InOrder order = inOrder(f.backend, f.memory, f.metadata);
            order.verify(f.backend).drainErrors();
            order.verify(f.memory).openSession(1L, false);
            order.verify(f.metadata).enterCaptureMode();
            order.verify(f.backend).onPrepare();
            assertThat(f.lifecycle.current()).isEqualTo(CaptureState.PREPARE);
        }

        @Test
        void begin_flushes_deferred_frees_then_ends_priming_then_opens_the_driver_capture() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults().mode(CaptureMode.RELAXED));
            InOrder order = inOrder(f.drops, f.session, f.driver);
            order.verify(f.drops).flushAndWait(any(), any());
            order.verify(f.session).endPriming();
            order.verify(f.driver).open(CaptureMode.RELAXED);
        }

        @Test
        void end_closes_the_window_then_validates_then_pins_then_commits_metadata_then_flushes() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            SealedWindow window = f.lifecycle.endCapture();
            InOrder order = inOrder(f.driver, f.session, f.metadata, f.drops);
            order.verify(f.driver).close();
            order.verify(f.session).doomed();
            order.verify(f.session).pinTo(window.graphId());
            order.verify(f.metadata).commit(window.graphId());
            order.verify(f.drops).flush();
            assertThat(window.graph()).isSameAs(f.graph);
        }

        @Test
        void a_software_graph_is_sealed_from_the_core_recording_and_never_opens_a_driver_capture() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.SOFTWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            f.lifecycle.endCapture();
            verify(f.driver, never()).open(any());
            verify(f.driver, never()).close();
            verify(f.graphs).seal(any());
        }

        @Test
        void a_software_cancel_calls_no_backend_hook_and_discards_pins() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.SOFTWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            f.lifecycle.cancelCapture();
            verify(f.session).abort();
            verify(f.metadata).discard();
            verifyNoInteractions(f.graphs, f.driver);
            assertRecapturable(f);
        }

        @Test
        void an_update_and_a_rebind_go_to_the_capture_support_the_stream_offered() {
            RecordedLaunches before = new RecordedLaunches(List.of());
            RecordedLaunches after = new RecordedLaunches(List.of());
            int[] changed = {0};
            LifecycleFixture hardware = new LifecycleFixture(GraphKind.HARDWARE);
            when(hardware.driver.rebind(hardware.graph, before, after, changed)).thenReturn(hardware.graph);
            assertThat(hardware.lifecycle.rebind(hardware.graph, before, after, changed))
                    .isSameAs(hardware.graph);
            verify(hardware.driver).rebind(hardware.graph, before, after, changed);

            LifecycleFixture software = new LifecycleFixture(GraphKind.SOFTWARE);
            when(software.graphs.update(software.graph, after)).thenReturn(software.graph);
            assertThat(software.lifecycle.rebind(software.graph, before, after, changed))
                    .isSameAs(software.graph);
            verify(software.graphs).update(software.graph, after);
        }

        @Test
        void a_stream_offering_another_graph_kind_than_the_runtime_is_refused_when_it_opens() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            when(f.backend.capture()).thenReturn(f.graphs);
            OperationPolicy hardware = new OperationPolicy("mock", java.util.Set.of(), GraphKind.HARDWARE);
            assertThatThrownBy(() -> new CaptureLifecycle(
                            2L,
                            f.backend,
                            hardware,
                            f.memory,
                            f.metadata,
                            f.drops,
                            () -> 1L,
                            () -> 2L,
                            java.time.Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("stream #2 offers SOFTWARE graphs")
                    .hasMessageContaining("HARDWARE");
        }

        @Test
        void cancel_from_capture_ends_in_no_capture_after_calling_abort_capture_and_discarding_pins() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            f.lifecycle.cancelCapture();
            InOrder order = inOrder(f.driver, f.session, f.metadata);
            order.verify(f.driver).abort();
            order.verify(f.session).abort();
            order.verify(f.metadata).discard();
            verify(f.session, never()).pinTo(anyLong());
            assertRecapturable(f);
        }
    }

    @Nested
    class Abort_path {
        @Test
        void a_throwing_on_prepare_hook_aborts_and_leaves_the_stream_recapturable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            doThrow(new IllegalStateException("no workspace"))
                    .doNothing()
                    .when(f.backend)
                    .onPrepare();
            assertThatThrownBy(f.lifecycle::prepare).hasMessage("no workspace");
            verify(f.driver).abort();
            verify(f.session).abort();
            verify(f.metadata).discard();
            assertRecapturable(f);
        }

        @Test
        void a_throwing_open_capture_aborts_and_leaves_the_stream_recapturable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            doThrow(new CaptureInvalidatedException("begin failed", 900, null))
                    .doNothing()
                    .when(f.driver)
                    .open(any());
            assertThatThrownBy(() -> f.lifecycle.beginCapture(CaptureOptions.defaults()))
                    .isInstanceOf(CaptureInvalidatedException.class);
            verify(f.driver).abort();
            assertRecapturable(f);
        }

        @Test
        void a_throwing_close_capture_aborts_with_the_driver_error_as_primary_and_leaves_the_stream_recapturable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            CaptureInvalidatedException driver = new CaptureInvalidatedException("invalidated", 901, null);
            when(f.driver.close()).thenThrow(driver).thenReturn(f.graph);
            IllegalStateException later = new IllegalStateException("abort also failed");
            doThrow(later).doNothing().when(f.driver).abort();
            assertThatThrownBy(f.lifecycle::endCapture).isSameAs(driver);
            assertThat(driver.getSuppressed()).containsExactly(later);
            verify(f.session, never()).pinTo(anyLong());
            assertRecapturable(f);
        }

        @Test
        void a_doomed_window_fails_end_with_not_relaunchable_and_destroys_the_driver_graph() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            when(f.session.doomed())
                    .thenReturn(Optional.of("allocate(4096 bytes): pool would grow"))
                    .thenReturn(Optional.empty());
            assertThatThrownBy(f.lifecycle::endCapture)
                    .isInstanceOf(GraphNotRelaunchableException.class)
                    .hasMessageContaining("pool would grow");
            verify(f.backend).destroy(f.graph);
            verify(f.session).abort();
            assertRecapturable(f);
        }

        @Test
        void a_lazily_rejected_write_fails_end_naming_it_and_the_stream_stays_usable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.SOFTWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            f.lifecycle.rejectLazily("write of 64 bytes into buffer #3");
            assertThatThrownBy(f.lifecycle::endCapture)
                    .isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("write of 64 bytes into buffer #3");
            assertRecapturable(f);
        }

        @Test
        void queued_errors_refuse_prepare_and_leave_the_state_unchanged() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            IllegalStateException first = new IllegalStateException("kernel fault");
            IllegalStateException second = new IllegalStateException("second fault");
            when(f.backend.drainErrors()).thenReturn(List.of(first, second)).thenReturn(List.of());
            assertThatThrownBy(f.lifecycle::prepare)
                    .isInstanceOf(GraphStateException.class)
                    .hasCause(first)
                    .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(second));
            assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
            verify(f.memory, never()).openSession(anyLong(), org.mockito.ArgumentMatchers.anyBoolean());
            assertRecapturable(f);
        }

        @Test
        void an_undeclared_capture_mode_is_refused_before_the_state_moves() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            OperationPolicy strict = new OperationPolicy("mock", java.util.Set.of(), GraphKind.HARDWARE);
            CaptureLifecycle lifecycle = new CaptureLifecycle(
                    1L,
                    f.backend,
                    strict,
                    f.memory,
                    f.metadata,
                    f.drops,
                    () -> 1L,
                    () -> 2L,
                    java.time.Duration.ofSeconds(5));
            lifecycle.prepare();
            assertThatThrownBy(() ->
                            lifecycle.beginCapture(CaptureOptions.defaults().mode(CaptureMode.RELAXED)))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessage("mock backend does not support CAPTURE_MODE_RELAXED: beginCapture in RELAXED mode");
            assertThat(lifecycle.current()).isEqualTo(CaptureState.PREPARE);
            verify(f.driver, never()).open(any());
        }

        @Test
        void a_cancel_whose_abort_hook_throws_still_ends_in_no_capture_and_reports_the_error() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            doThrow(new IllegalStateException("driver refused"))
                    .doNothing()
                    .when(f.driver)
                    .abort();
            assertThatThrownBy(f.lifecycle::cancelCapture).hasMessage("driver refused");
            verify(f.session).abort();
            verify(f.metadata).discard();
            assertRecapturable(f);
        }
    }

    @Test
    void end_from_another_thread_is_refused_in_thread_local_mode_and_the_capture_survives() throws Exception {
        LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
        f.lifecycle.prepare();
        f.lifecycle.beginCapture(CaptureOptions.defaults());
        Throwable[] seen = new Throwable[1];
        Thread other = new Thread(
                () -> {
                    try {
                        f.lifecycle.endCapture();
                    } catch (Throwable t) {
                        seen[0] = t;
                    }
                },
                "intruder");
        other.start();
        other.join();
        assertThat(seen[0]).isInstanceOf(CaptureRejectedException.class).hasMessageContaining("intruder");
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.CAPTURE);
        f.lifecycle.endCapture();
    }
}
