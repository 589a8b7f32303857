package dev.graphrt.driver;

import dev.graphrt.api.CaptureMode;

/**
 * The stream-capture mode numbers that CUDA ({@code CUstreamCaptureMode}) and HIP
 * ({@code hipStreamCaptureMode}) share: GLOBAL 0, THREAD_LOCAL 1, RELAXED 2.
 */
public final class DriverCaptureModes {
    private DriverCaptureModes() {}

    /** RELAXED's number: the mode a thread's capture mode is exchanged to around host allocations. */
    public static final int RELAXED = 2;

    public static int code(CaptureMode mode) {
        return switch (mode) {
            case GLOBAL -> 0;
            case THREAD_LOCAL -> 1;
            case RELAXED -> RELAXED;
        };
    }
}
