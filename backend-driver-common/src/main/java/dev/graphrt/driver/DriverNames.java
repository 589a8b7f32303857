package dev.graphrt.driver;

import java.util.Objects;

/**
 * How a driver backend names itself and its calls: the backend ({@code cuda}, {@code hip}) for messages, graph
 * names and DOT files; the prefix of its functions ({@code cu}, {@code hip}) for messages naming a call; and
 * its result-code mapping.
 *
 * @param backend    the backend's name, lower case
 * @param callPrefix what the driver's function names start with
 * @param errors     the backend's result-code mapping
 */
public record DriverNames(String backend, String callPrefix, HardwareGraphErrors errors) {
    public DriverNames {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(callPrefix, "callPrefix");
        Objects.requireNonNull(errors, "errors");
    }

    /** {@code Cuda}, {@code Hip}: the backend's name as a type-name prefix ({@code CudaGraph}). */
    public String title() {
        return Character.toUpperCase(backend.charAt(0)) + backend.substring(1);
    }
}
