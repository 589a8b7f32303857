package dev.graphrt.api;

import java.util.List;

/**
 * Checked mode ({@link RuntimeOptions#checked()}) found a buffer's guard bytes changed: some work wrote outside
 * the buffer. GPUs do not stop such writes; the guard around every allocation catches them when the work
 * completes (a synchronize, a read, a diagnosis step). The message names the buffer, the first changed byte as
 * an offset from the buffer's start (negative: before it; at or past its size: after it) and the last launches
 * that used the buffer, newest first. The guard is restored, so each overrun is reported once.
 */
public final class BufferOverrunException extends GraphRTException {
    private final String buffer;
    private final long offset;
    private final List<String> lastLaunches;

    public BufferOverrunException(String buffer, long offset, List<String> lastLaunches) {
        super("checked mode: a write outside " + buffer + " changed its guard at offset " + offset
                + (offset < 0 ? " (before its start)" : " (past its end)") + "; the last launches that used it, "
                + "newest first: " + (lastLaunches.isEmpty() ? "none" : String.join("; ", lastLaunches)));
        this.buffer = buffer;
        this.offset = offset;
        this.lastLaunches = List.copyOf(lastLaunches);
    }

    /** The buffer whose guard changed, as its {@code toString()} reads. */
    public String buffer() {
        return buffer;
    }

    /** The first changed byte, relative to the buffer's start. */
    public long offset() {
        return offset;
    }

    /** The last launches that used the buffer (kernel name and dims), newest first. */
    public List<String> lastLaunches() {
        return lastLaunches;
    }
}
