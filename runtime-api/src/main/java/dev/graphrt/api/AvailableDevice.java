package dev.graphrt.api;

import java.util.Objects;
import java.util.Set;

/**
 * One device this machine can open, as {@code GraphRT.devices()} lists it: the backend and ordinal that select it
 * ({@link #options()}), what it is, and what its backend declares on it. The figures come from opening the device,
 * so they are the ones a runtime opened with {@link #options()} reports.
 *
 * @param backend      the backend's name ("cuda", "hip", "wgpu", "cpu")
 * @param ordinal      the device's ordinal within its backend ({@link RuntimeOptions#deviceIndex()})
 * @param device       the device as its backend describes it (name, driver, memory, compute units)
 * @param capabilities what the backend declares on this device
 * @param graphKind    hardware graphs or software graphs
 */
public record AvailableDevice(
        String backend, int ordinal, DeviceInfo device, Set<Capability> capabilities, GraphKind graphKind) {
    public AvailableDevice {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(graphKind, "graphKind");
        capabilities = Set.copyOf(capabilities);
        if (ordinal < 0) {
            throw new IllegalArgumentException("ordinal must be >= 0, was " + ordinal);
        }
    }

    /** The default options with this device chosen: {@code GraphRT.open(device.options())} opens it. */
    public RuntimeOptions options() {
        return RuntimeOptions.defaults().device(backend, ordinal);
    }

    @Override
    public String toString() {
        return backend + ":" + ordinal + " " + device.name() + " (" + device.driver()
                + (device.memoryBytes() > 0 ? ", " + (device.memoryBytes() >> 20) + " MiB" : "") + ", "
                + device.computeUnits() + " units, " + graphKind + " graphs)";
    }
}
