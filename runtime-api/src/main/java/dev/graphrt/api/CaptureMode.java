package dev.graphrt.api;

/**
 * How strictly a capture guards against unsafe calls, named after CUDA's stream capture modes.
 * GraphRT enforces the thread rule itself on every backend: in {@link #GLOBAL} and {@link #THREAD_LOCAL}
 * only the thread that began the capture may use the recording stream; {@link #RELAXED} lets any thread.
 */
public enum CaptureMode {
    GLOBAL,
    THREAD_LOCAL,
    RELAXED
}
