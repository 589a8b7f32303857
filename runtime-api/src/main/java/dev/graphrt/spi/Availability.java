package dev.graphrt.spi;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The answer of {@link BackendProvider#probe()}: available (with a one-line description of what was
 * found and how many devices {@link BackendProvider#open} can open) or not (with the reason). A provider may
 * lower or raise its priority for what it found, e.g. a WebGPU provider that only sees a CPU adapter ranks below
 * the pure-Java backend.
 *
 * <p>The device count is part of the probe's answer, so listing the devices of a machine
 * ({@code GraphRT.devices()}) asks each provider once, the way the probe already does: ordinals
 * {@code 0 .. deviceCount - 1} are what {@link BackendConfig#deviceIndex()} may name.
 *
 * @param available        whether {@link BackendProvider#open} can work here
 * @param detail           what was found, or why it cannot work
 * @param priorityOverride the priority for what was found, or empty for {@link BackendProvider#priority()}
 * @param deviceCount      how many devices can be opened: at least 1 when available, 0 when not
 */
public record Availability(boolean available, String detail, OptionalInt priorityOverride, int deviceCount) {
    public Availability {
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(priorityOverride, "priorityOverride");
        if (available && deviceCount < 1) {
            throw new IllegalArgumentException("deviceCount must be >= 1 when available, was " + deviceCount);
        }
        if (!available && deviceCount != 0) {
            throw new IllegalArgumentException("deviceCount must be 0 when unavailable, was " + deviceCount);
        }
    }

    /** Available with one device. */
    public static Availability available(String detail) {
        return new Availability(true, detail, OptionalInt.empty(), 1);
    }

    /** Available with one device, ranked {@code priority} for what was found. */
    public static Availability available(String detail, int priority) {
        return new Availability(true, detail, OptionalInt.of(priority), 1);
    }

    public static Availability unavailable(String reason) {
        return new Availability(false, reason, OptionalInt.empty(), 0);
    }

    /** The same answer with {@code count} devices (at least 1); only an available answer has devices. */
    public Availability withDevices(int count) {
        if (!available) {
            throw new IllegalStateException("an unavailable backend has no devices: " + detail);
        }
        return new Availability(true, detail, priorityOverride, count);
    }

    @Override
    public String toString() {
        return (available ? "available: " : "unavailable: ") + detail;
    }
}
