package dev.graphrt.spi;

/** A point in a stream's work (a CUDA event, a submission index). Opaque to the core. */
public interface Fence {}
