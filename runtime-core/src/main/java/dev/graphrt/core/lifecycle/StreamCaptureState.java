package dev.graphrt.core.lifecycle;

import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.core.metadata.CacheMode;
import org.jspecify.annotations.Nullable;

/**
 * The one place that moves a stream through {@code NO_CAPTURE -> PREPARE -> CAPTURE -> NO_CAPTURE}.
 * Each transition checks first and changes nothing when it refuses, so a rejected call leaves the stream
 * exactly as it was. Callers move the state <em>before</em> the work a transition brackets: a failure in
 * that work then finds the stream already where the abort path expects it and can never wedge it.
 * Not thread-safe: the owning stream serialises calls.
 */
public final class StreamCaptureState {
    /** Volatile: other streams read it (without this stream's lock) to know whether device calls are allowed. */
    private volatile CaptureState state = CaptureState.NO_CAPTURE;

    public CaptureState current() {
        return state;
    }

    /** The four user calls that move the state; each knows the states it starts from. */
    public enum Call {
        PREPARE("prepare"),
        BEGIN("beginCapture"),
        END("endCapture"),
        CANCEL("cancelCapture");

        private final String method;

        Call(String method) {
            this.method = method;
        }

        public String method() {
            return method;
        }
    }

    /**
     * Refuses {@code call} from the current state, changing nothing: a {@link GraphStateException} naming the
     * call, the state and the fix. Callers check first and then do work before moving the state.
     */
    public void require(Call call) {
        String fix = refusal(call);
        if (fix != null) {
            throw new GraphStateException(call.method() + ": the stream is in " + state + "; " + fix);
        }
    }

    /** The fix to suggest when {@code call} is refused in the current state; null when it is allowed. */
    private @Nullable String refusal(Call call) {
        return switch (call) {
            case PREPARE ->
                state == CaptureState.NO_CAPTURE
                        ? null
                        : state == CaptureState.PREPARE
                                ? "it is already prepared: call beginCapture() or cancelCapture()"
                                : "a capture is recording: call endCapture() or cancelCapture() first";
            case BEGIN ->
                state == CaptureState.PREPARE
                        ? null
                        : state == CaptureState.NO_CAPTURE
                                ? "call prepare() before starting a capture"
                                : "a capture is already recording: call endCapture() or cancelCapture() first";
            case END ->
                state == CaptureState.CAPTURE
                        ? null
                        : state == CaptureState.PREPARE
                                ? "call beginCapture() first, or cancelCapture() to leave the warm-up"
                                : "there is no capture to end: call prepare() and beginCapture() first";
            case CANCEL ->
                state != CaptureState.NO_CAPTURE
                        ? null
                        : "there is nothing to cancel (call prepare() to start a capture)";
        };
    }

    /** NO_CAPTURE to PREPARE. */
    public void prepare() {
        require(Call.PREPARE);
        state = CaptureState.PREPARE;
    }

    /** PREPARE to CAPTURE. */
    public void begin() {
        require(Call.BEGIN);
        state = CaptureState.CAPTURE;
    }

    /** CAPTURE to NO_CAPTURE. */
    public void end() {
        require(Call.END);
        state = CaptureState.NO_CAPTURE;
    }

    /** PREPARE or CAPTURE to NO_CAPTURE, for the user's {@code cancelCapture()}. */
    public void cancel() {
        require(Call.CANCEL);
        state = CaptureState.NO_CAPTURE;
    }

    /** Any state to NO_CAPTURE; never refuses. The internal way out of every failure. */
    public void abort() {
        state = CaptureState.NO_CAPTURE;
    }

    /** Whether launches are being recorded rather than run. */
    public boolean isRecording() {
        return state == CaptureState.CAPTURE;
    }

    /** Whether the stream is inside a capture window (PREPARE or CAPTURE). */
    public boolean inWindow() {
        return state != CaptureState.NO_CAPTURE;
    }

    /** The metadata cache mode this state requires: CAPTURE across the whole PREPARE+CAPTURE window. */
    public CacheMode cacheMode() {
        return inWindow() ? CacheMode.CAPTURE : CacheMode.NORMAL;
    }

    @Override
    public String toString() {
        return state.name();
    }
}
