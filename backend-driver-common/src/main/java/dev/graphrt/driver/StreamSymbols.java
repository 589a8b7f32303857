package dev.graphrt.driver;

import java.util.Objects;

/**
 * Which exported function of a backend's library plays each part of a {@link StreamDriver}, for
 * {@link BoundStreamDriver}. The cold ones ({@code createStream}, {@code destroyStream}, {@code query},
 * {@code createEvent}, {@code synchronizeEvent}, {@code destroyEvent}, {@code waitEvent}) must have the C signature
 * CUDA and HIP share for them ({@code (handle*, unsigned flags)} to create, {@code (stream, event, unsigned flags)}
 * to wait, {@code (handle)} otherwise); the hot ones are only named
 * here, for messages: the backend calls them itself.
 */
public record StreamSymbols(
        NativeSymbol createStream,
        NativeSymbol destroyStream,
        NativeSymbol synchronize,
        NativeSymbol query,
        NativeSymbol launch,
        NativeSymbol copyToDevice,
        NativeSymbol copyToHost,
        NativeSymbol createEvent,
        NativeSymbol recordEvent,
        NativeSymbol queryEvent,
        NativeSymbol synchronizeEvent,
        NativeSymbol destroyEvent,
        NativeSymbol waitEvent,
        NativeSymbol copyDeviceToDevice) {
    public StreamSymbols {
        Objects.requireNonNull(createStream, "createStream");
        Objects.requireNonNull(destroyStream, "destroyStream");
        Objects.requireNonNull(synchronize, "synchronize");
        Objects.requireNonNull(query, "query");
        Objects.requireNonNull(launch, "launch");
        Objects.requireNonNull(copyToDevice, "copyToDevice");
        Objects.requireNonNull(copyToHost, "copyToHost");
        Objects.requireNonNull(createEvent, "createEvent");
        Objects.requireNonNull(recordEvent, "recordEvent");
        Objects.requireNonNull(queryEvent, "queryEvent");
        Objects.requireNonNull(synchronizeEvent, "synchronizeEvent");
        Objects.requireNonNull(destroyEvent, "destroyEvent");
        Objects.requireNonNull(waitEvent, "waitEvent");
        Objects.requireNonNull(copyDeviceToDevice, "copyDeviceToDevice");
    }
}
