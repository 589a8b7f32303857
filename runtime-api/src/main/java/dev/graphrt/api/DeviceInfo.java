package dev.graphrt.api;

/**
 * The device a runtime runs on, as the backend describes it.
 *
 * @param backend      the backend's name ("cuda", "cpu", ...)
 * @param name         the device's name ("NVIDIA H200", "Java 25 on 2 cores")
 * @param driver       driver or API version string
 * @param memoryBytes  total device memory, or -1 when unknown
 * @param computeUnits multiprocessors, compute units or cores
 */
public record DeviceInfo(String backend, String name, String driver, long memoryBytes, int computeUnits) {
    @Override
    public String toString() {
        return backend + ": " + name + " (" + driver + ", " + computeUnits + " units"
                + (memoryBytes > 0 ? ", " + (memoryBytes >> 20) + " MiB" : "") + ")";
    }
}
