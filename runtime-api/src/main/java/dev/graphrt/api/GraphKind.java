package dev.graphrt.api;

/**
 * Who records a graph. HARDWARE: the driver (CUDA, HIP) records while the stream captures; the core must
 * keep the driver away from anything that would invalidate it. SOFTWARE: the core records resolved
 * launches and hands them to the backend to replay in one submission (WebGPU, CPU).
 *
 * <p>A backend does not declare it: the core derives it from the capture support the backend's streams offer
 * ({@code BackendStream.capture()} in the SPI: a {@code DriverCapture} is HARDWARE, {@code SoftwareGraphs} SOFTWARE).
 */
public enum GraphKind {
    HARDWARE,
    SOFTWARE
}
