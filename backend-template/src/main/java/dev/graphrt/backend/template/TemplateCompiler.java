package dev.graphrt.backend.template;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import java.util.List;
import java.util.OptionalInt;

/**
 * "Compiles" JAVA-dialect kernels by taking their Java body. The core caches compiled kernels per runtime, so
 * this needs no cache of its own.
 *
 * <p>The parameter count matters: a kernel that reports it lets the core refuse a launch with the wrong number of
 * buffers at the call. A Java kernel has no signature to read, so the count is what its source declared
 * ({@code KernelSource.java(kernel, parameters)}), or empty (unchecked) when it declared none.
 */
final class TemplateCompiler implements KernelCompiler {

    /** A compiled kernel: its name, its body and its declared parameter count. */
    record Kernel(String entryPoint, JavaKernel body, OptionalInt declaredParameters) implements CompiledKernel {
        @Override
        public Dialect dialect() {
            return Dialect.JAVA;
        }
    }

    @Override
    public List<Dialect> dialects() {
        return List.of(Dialect.JAVA);
    }

    @Override
    public CompiledKernel compile(KernelSource source) {
        JavaKernel body = source.javaKernel()
                .orElseThrow(() -> new KernelCompilationException(
                        "kernel '"
                                + source.entryPoint()
                                + "' has no JAVA implementation, the only dialect the template backend runs; "
                                + "add .java(...) to its KernelSource",
                        ""));
        OptionalInt declared =
                source.javaParameters().map(p -> OptionalInt.of(p.count())).orElse(OptionalInt.empty());
        return new Kernel(source.entryPoint(), body, declared);
    }
}
