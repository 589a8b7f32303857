package dev.graphrt.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.reset;
import static org.mockito.Mockito.when;

import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphKind;
import dev.graphrt.api.GraphStateException;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class LifecyclePropertyTest {

    enum Call {
        PREPARE,
        BEGIN,
        END,
        CANCEL
    }

    /** One lifecycle call; {@code hookFails} makes the backend hook that call brackets throw. */
    record Step(Call call, boolean hookFails) {}

    static final class HookFailure extends RuntimeException {
        HookFailure() {
            super("injected hook failure");
        }
    }

    @Provide
    Arbitrary<Step> steps() {
        return Combinators.combine(
                        Arbitraries.of(Call.class), Arbitraries.integers().between(0, 9))
                .as((call, dice) -> new Step(call, dice == 0));
    }

    /** The table of DESIGN.md section 2: the state after a call, or empty when the call is an ordering error. */
    static Optional<CaptureState> predicted(CaptureState from, Call call) {
        return switch (call) {
            case PREPARE -> from == CaptureState.NO_CAPTURE ? Optional.of(CaptureState.PREPARE) : Optional.empty();
            case BEGIN -> from == CaptureState.PREPARE ? Optional.of(CaptureState.CAPTURE) : Optional.empty();
            case END -> from == CaptureState.CAPTURE ? Optional.of(CaptureState.NO_CAPTURE) : Optional.empty();
            case CANCEL -> from != CaptureState.NO_CAPTURE ? Optional.of(CaptureState.NO_CAPTURE) : Optional.empty();
        };
    }

    @Property(tries = 300)
    void any_sequence_of_calls_follows_the_table_and_always_ends_recapturable(
            @ForAll("stepLists") List<Step> steps, @ForAll boolean hardware) {
        LifecycleFixture f = new LifecycleFixture(hardware ? GraphKind.HARDWARE : GraphKind.SOFTWARE);
        CaptureState model = CaptureState.NO_CAPTURE;
        for (Step step : steps) {
            armHook(f, step);
            Throwable thrown = catchThrowable(() -> run(f.lifecycle, step.call()));
            Optional<CaptureState> next = predicted(model, step.call());
            if (next.isEmpty()) {
                assertThat(thrown).as("%s from %s", step.call(), model).isInstanceOf(GraphStateException.class);
            } else if (thrown != null) {
                assertThat(thrown)
                        .as("only injected failures may escape an allowed call")
                        .isInstanceOf(HookFailure.class);
                model = CaptureState.NO_CAPTURE;
            } else {
                model = next.get();
            }
            assertThat(f.lifecycle.current()).as("after %s", step).isEqualTo(model);
            disarmHooks(f);
        }
        if (f.lifecycle.current() != CaptureState.NO_CAPTURE) {
            f.lifecycle.cancelCapture();
        }
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
        f.lifecycle.prepare();
        f.lifecycle.beginCapture(CaptureOptions.defaults());
        f.lifecycle.endCapture();
        assertThat(f.lifecycle.current()).isEqualTo(CaptureState.NO_CAPTURE);
    }

    @Provide
    Arbitrary<List<Step>> stepLists() {
        return steps().list().ofMinSize(0).ofMaxSize(25);
    }

    private static void run(CaptureLifecycle lifecycle, Call call) {
        switch (call) {
            case PREPARE -> lifecycle.prepare();
            case BEGIN -> lifecycle.beginCapture(CaptureOptions.defaults());
            case END -> lifecycle.endCapture();
            case CANCEL -> lifecycle.cancelCapture();
        }
    }

    private static void armHook(LifecycleFixture f, Step step) {
        if (!step.hookFails()) {
            return;
        }
        switch (step.call()) {
            case PREPARE -> doThrow(new HookFailure()).when(f.backend).onPrepare();
            case BEGIN -> doThrow(new HookFailure()).when(f.driver).open(org.mockito.ArgumentMatchers.any());
            case END -> {
                when(f.driver.close()).thenThrow(new HookFailure());
                when(f.graphs.seal(org.mockito.ArgumentMatchers.any())).thenThrow(new HookFailure());
            }
            case CANCEL -> doThrow(new HookFailure()).when(f.driver).abort(); // software graphs have no abort hook
        }
    }

    private static void disarmHooks(LifecycleFixture f) {
        reset(f.backend, f.driver, f.graphs);
        when(f.backend.drainErrors()).thenReturn(List.of());
        when(f.driver.close()).thenReturn(f.graph);
        when(f.graphs.seal(org.mockito.ArgumentMatchers.any())).thenReturn(f.graph);
    }
}
