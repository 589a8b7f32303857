package dev.graphrt.api;

/** The languages a kernel can be written in; each backend compiles the ones it understands. */
public enum Dialect {
    /** CUDA C, compiled by NVRTC to PTX. */
    CUDA_C,
    /** HIP C, compiled by hiprtc; defaults to the CUDA C text when none is given. */
    HIP_C,
    /** WebGPU Shading Language. */
    WGSL,
    /** A {@link JavaKernel}, run by the CPU backend. */
    JAVA
}
