package dev.graphrt.driver;

import java.util.Objects;

/**
 * Which exported function of a backend's library plays each part of {@link BoundDeviceMemory}. {@code allocate}
 * ({@code (ptr*, size_t)}) and {@code freePinned} ({@code (void*)}) must have the C signature CUDA and HIP share;
 * the others differ between the APIs (a {@code CUdeviceptr} is an integer, a HIP device pointer a {@code void*};
 * {@code hipHostMalloc} takes flags) and are only named here, for messages: the backend calls them itself.
 */
public record MemorySymbols(
        NativeSymbol allocate,
        NativeSymbol free,
        NativeSymbol copyToDevice,
        NativeSymbol allocatePinned,
        NativeSymbol freePinned) {
    public MemorySymbols {
        Objects.requireNonNull(allocate, "allocate");
        Objects.requireNonNull(free, "free");
        Objects.requireNonNull(copyToDevice, "copyToDevice");
        Objects.requireNonNull(allocatePinned, "allocatePinned");
        Objects.requireNonNull(freePinned, "freePinned");
    }
}
