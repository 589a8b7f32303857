package dev.graphrt.api;

/**
 * A kernel did not compile, or the backend has no compiler for any dialect the source provides.
 * {@link #log()} holds the compiler's own output (empty when there was none).
 */
public final class KernelCompilationException extends GraphRTException {
    private final String log;

    public KernelCompilationException(String message, String log) {
        super(log == null || log.isBlank() ? message : message + "\n" + log);
        this.log = log == null ? "" : log;
    }

    public String log() {
        return log;
    }
}
