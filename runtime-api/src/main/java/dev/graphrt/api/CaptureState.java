package dev.graphrt.api;

/**
 * Where a stream stands in the capture lifecycle: {@code NO_CAPTURE -> PREPARE -> CAPTURE -> NO_CAPTURE}.
 * PREPARE is the warm-up (work runs, memory is primed); CAPTURE records work instead of running it.
 */
public enum CaptureState {
    NO_CAPTURE,
    PREPARE,
    CAPTURE
}
