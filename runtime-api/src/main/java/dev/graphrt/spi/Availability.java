package dev.graphrt.spi;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The answer of {@link BackendProvider#probe()}: available (with a one-line description of what was
 * found) or not (with the reason). A provider may lower or raise its priority for what it found, e.g.
 * a WebGPU provider that only sees a CPU adapter ranks below the pure-Java backend.
 */
public record Availability(boolean available, String detail, OptionalInt priorityOverride) {
    public Availability {
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(priorityOverride, "priorityOverride");
    }

    public static Availability available(String detail) {
        return new Availability(true, detail, OptionalInt.empty());
    }

    public static Availability available(String detail, int priority) {
        return new Availability(true, detail, OptionalInt.of(priority));
    }

    public static Availability unavailable(String reason) {
        return new Availability(false, reason, OptionalInt.empty());
    }

    @Override
    public String toString() {
        return (available ? "available: " : "unavailable: ") + detail;
    }
}
