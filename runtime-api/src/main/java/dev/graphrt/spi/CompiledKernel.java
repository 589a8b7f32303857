package dev.graphrt.spi;

import dev.graphrt.api.Dialect;

/** A kernel a backend compiled: its own handle type (a CUfunction, a pipeline, a Java kernel). */
public interface CompiledKernel {
    String entryPoint();

    Dialect dialect();
}
