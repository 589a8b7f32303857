package dev.graphrt.core.lifecycle;

import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GraphStateException;
import dev.graphrt.core.metadata.CacheMode;

/**
 * The one place that moves a stream through {@code NO_CAPTURE -> PREPARE -> CAPTURE -> NO_CAPTURE}.
 * Each transition checks first and changes nothing when it refuses, so a rejected call leaves the stream
 * exactly as it was. Callers move the state <em>before</em> the work a transition brackets: a failure in
 * that work then finds the stream already where the abort path expects it and can never wedge it.
 * Not thread-safe: the owning stream serialises calls.
 */
public final class StreamCaptureState {
    private CaptureState state = CaptureState.NO_CAPTURE;

    public CaptureState current() {
        return state;
    }

    /** NO_CAPTURE to PREPARE. */
    public void prepare() {
        if (state != CaptureState.NO_CAPTURE) {
            throw new GraphStateException("prepare: the stream is in " + state + "; "
                    + (state == CaptureState.PREPARE
                    ? "it is already prepared: call beginCapture() or cancelCapture()"
                    : "a capture is recording: call endCapture() or cancelCapture() first"));
        }
        state = CaptureState.PREPARE;
    }

    /** PREPARE to CAPTURE. */
    public void begin() {
        if (state != CaptureState.PREPARE) {
            throw new GraphStateException("beginCapture: the stream is in " + state + "; "
                    + (state == CaptureState.NO_CAPTURE
                    ? "call prepare() before starting a capture"
                    : "a capture is already recording: call endCapture() or cancelCapture() first"));
        }
        state = CaptureState.CAPTURE;
    }

    /** CAPTURE to NO_CAPTURE. */
    public void end() {
        if (state != CaptureState.CAPTURE) {
            throw new GraphStateException("endCapture: the stream is in " + state + "; "
                    + (state == CaptureState.PREPARE
                    ? "call beginCapture() first, or cancelCapture() to leave the warm-up"
                    : "there is no capture to end: call prepare() and beginCapture() first"));
        }
        state = CaptureState.NO_CAPTURE;
    }

    /** PREPARE or CAPTURE to NO_CAPTURE, for the user's {@code cancelCapture()}. */
    public void cancel() {
        if (state == CaptureState.NO_CAPTURE) {
            throw new GraphStateException("cancelCapture: the stream is in NO_CAPTURE; there is nothing to "
                    + "cancel (call prepare() to start a capture)");
        }
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
