package dev.graphrt.api;

import java.util.Objects;

/**
 * The device a runtime runs on, as the backend describes it.
 *
 * @param backend      the backend's name ("cuda", "cpu", ...)
 * @param name         the device's name ("NVIDIA H200", "Java 25 on 2 cores")
 * @param driver       driver or API version string
 * @param memoryBytes  total device memory, or -1 when unknown
 * @param computeUnits multiprocessors, compute units or cores
 * @param limits       the largest launch the device takes, checked at every launch ({@link LaunchLimits})
 */
public record DeviceInfo(
        String backend, String name, String driver, long memoryBytes, int computeUnits, LaunchLimits limits) {
    public DeviceInfo {
        Objects.requireNonNull(limits, "limits");
    }

    /** A device whose launch limits are not known (listed, not opened): {@link LaunchLimits#UNDECLARED}. */
    public DeviceInfo(String backend, String name, String driver, long memoryBytes, int computeUnits) {
        this(backend, name, driver, memoryBytes, computeUnits, LaunchLimits.UNDECLARED);
    }

    @Override
    public String toString() {
        return backend + ": " + name + " (" + driver + ", " + computeUnits + " units"
                + (memoryBytes > 0 ? ", " + (memoryBytes >> 20) + " MiB" : "") + ")";
    }
}
