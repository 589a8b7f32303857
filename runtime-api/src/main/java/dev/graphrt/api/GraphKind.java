package dev.graphrt.api;

/**
 * Who records a graph. HARDWARE: the driver (CUDA, HIP) records while the stream captures; the core must
 * keep the driver away from anything that would invalidate it. SOFTWARE: the core records resolved
 * launches and hands them to the backend to replay in one submission (WebGPU, CPU).
 */
public enum GraphKind {
    HARDWARE, SOFTWARE
}
