package dev.graphrt.api;

import org.jspecify.annotations.Nullable;

/** A native driver call failed. Carries the call's name, the numeric code and the code's symbolic name. */
public final class DriverException extends GraphRTException {
    private final String call;
    private final int code;
    private final String codeName;

    public DriverException(String call, int code, String codeName) {
        this(call, code, codeName, null);
    }

    public DriverException(String call, int code, String codeName, @Nullable String detail) {
        super(call + " failed: " + code + " " + codeName + (detail == null ? "" : " (" + detail + ")"));
        this.call = call;
        this.code = code;
        this.codeName = codeName;
    }

    /**
     * A failure the backend reported in its own terms (a Java exception, an asynchronous error): the core wraps
     * it so that callers see one family, with the backend's exception as the cause.
     */
    public DriverException(String call, Throwable cause) {
        this(call, -1, cause.getClass().getSimpleName(), String.valueOf(cause.getMessage()));
        initCause(cause);
    }

    public String call() {
        return call;
    }

    public int code() {
        return code;
    }

    public String codeName() {
        return codeName;
    }
}
