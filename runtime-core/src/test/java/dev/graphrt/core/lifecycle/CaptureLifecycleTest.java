package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
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
            InOrder order = inOrder(f.drops, f.session, f.backend);
            order.verify(f.drops).flushAndWait(any(), any());
            order.verify(f.session).endPriming();
            order.verify(f.backend).openCapture(CaptureMode.RELAXED);
        }

        @Test
        void end_closes_the_window_then_validates_then_pins_then_commits_metadata_then_flushes() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            SealedWindow window = f.lifecycle.endCapture();
            InOrder order = inOrder(f.backend, f.session, f.metadata, f.drops);
            order.verify(f.backend).closeCapture();
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
            verify(f.backend, never()).openCapture(any());
            verify(f.backend, never()).closeCapture();
            verify(f.backend).sealRecording(any());
        }

        @Test
        void cancel_from_capture_ends_in_no_capture_after_calling_abort_capture_and_discarding_pins() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            f.lifecycle.cancelCapture();
            InOrder order = inOrder(f.backend, f.session, f.metadata);
            order.verify(f.backend).abortCapture();
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
            doThrow(new IllegalStateException("no workspace")).doNothing().when(f.backend).onPrepare();
            assertThatThrownBy(f.lifecycle::prepare).hasMessage("no workspace");
            verify(f.backend).abortCapture();
            verify(f.session).abort();
            verify(f.metadata).discard();
            assertRecapturable(f);
        }

        @Test
        void a_throwing_open_capture_aborts_and_leaves_the_stream_recapturable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            doThrow(new CaptureInvalidatedException("begin failed", 900, null)).doNothing()
                    .when(f.backend).openCapture(any());
            assertThatThrownBy(() -> f.lifecycle.beginCapture(CaptureOptions.defaults()))
                    .isInstanceOf(CaptureInvalidatedException.class);
            verify(f.backend).abortCapture();
            assertRecapturable(f);
        }

        @Test
        void a_throwing_close_capture_aborts_with_the_driver_error_as_primary_and_leaves_the_stream_recapturable() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            CaptureInvalidatedException driver = new CaptureInvalidatedException("invalidated", 901, null);
            when(f.backend.closeCapture()).thenThrow(driver).thenReturn(f.graph);
            IllegalStateException later = new IllegalStateException("abort also failed");
            doThrow(later).doNothing().when(f.backend).abortCapture();
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
            when(f.session.doomed()).thenReturn(Optional.of("allocate(4096 bytes): pool would grow"))
                    .thenReturn(Optional.empty());
            assertThatThrownBy(f.lifecycle::endCapture).isInstanceOf(GraphNotRelaunchableException.class)
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
            assertThatThrownBy(f.lifecycle::endCapture).isInstanceOf(CaptureRejectedException.class)
                    .hasMessageContaining("write of 64 bytes into buffer #3");
            assertRecapturable(f);
        }

        @Test
        void queued_errors_refuse_prepare_and_leave_the_state_unchanged() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            IllegalStateException first = new IllegalStateException("kernel fault");
            IllegalStateException second = new IllegalStateException("second fault");
            when(f.backend.drainErrors()).thenReturn(List.of(first, second)).thenReturn(List.of());
            assertThatThrownBy(f.lifecycle::prepare).isInstanceOf(GraphStateException.class).hasCause(first)
                    .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(second));
            assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
            verify(f.memory, never()).openSession(anyLong(), org.mockito.ArgumentMatchers.anyBoolean());
            assertRecapturable(f);
        }

        @Test
        void an_undeclared_capture_mode_is_refused_before_the_state_moves() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            OperationPolicy strict = new OperationPolicy("mock", java.util.Set.of(dev.graphrt.api.Capability.HARDWARE_GRAPH),
                    GraphKind.HARDWARE);
            CaptureLifecycle lifecycle = new CaptureLifecycle(1L, f.backend, strict, f.memory, f.metadata, f.drops,
                    () -> 1L, () -> 2L, java.time.Duration.ofSeconds(5));
            lifecycle.prepare();
            assertThatThrownBy(() -> lifecycle.beginCapture(CaptureOptions.defaults().mode(CaptureMode.RELAXED)))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessage("mock backend does not support CAPTURE_MODE_RELAXED: beginCapture in RELAXED mode");
            assertThat(lifecycle.current()).isEqualTo(CaptureState.PREPARE);
            verify(f.backend, never()).openCapture(any());
        }

        @Test
        void a_cancel_whose_abort_hook_throws_still_ends_in_no_capture_and_reports_the_error() {
            LifecycleFixture f = new LifecycleFixture(GraphKind.HARDWARE);
            f.lifecycle.prepare();
            f.lifecycle.beginCapture(CaptureOptions.defaults());
            doThrow(new IllegalStateException("driver refused")).doNothing().when(f.backend).abortCapture();
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
        Thread other = new Thread(() -> {
            try {
                f.lifecycle.endCapture();
            } catch (Throwable t) {
                seen[0] = t;
            }
        }, "intruder");
        other.start();
        other.join();
        assertThat(seen[0]).isInstanceOf(CaptureRejectedException.class).hasMessageContaining("intruder");
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.CAPTURE);
        f.lifecycle.endCapture();
    }
}
