package dev.graphrt.spi;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import java.util.List;

/**
 * Compiles kernels. The core caches results per runtime by source, so a backend need not. A source
 * without any dialect this compiler accepts fails with {@code KernelCompilationException} naming both.
 */
public interface KernelCompiler {
    /** Accepted dialects, most preferred first. */
    List<Dialect> dialects();

    CompiledKernel compile(KernelSource source);
}
