package dev.graphrt.backend.cpu;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.JavaParameters;
import dev.graphrt.api.KernelCompilationException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import java.util.List;
import java.util.OptionalInt;

/** "Compiles" JAVA-dialect kernels: takes the {@link JavaKernel} of the source. */
final class CpuCompiler implements KernelCompiler {

    /**
     * A Java kernel ready to run.
     *
     * @param declaredParameters what its source declared ({@link KernelSource#java(JavaKernel, JavaParameters)}),
     *                           or empty: a Java kernel has no signature to read, so undeclared launches are unchecked
     * @param meetsOtherRanks    whether it is a collective that waits for other streams' ranks: the stream hands it
     *                           to its worker at once instead of batching it, as the others wait for it
     */
    record CpuKernel(String entryPoint, JavaKernel body, OptionalInt declaredParameters, boolean meetsOtherRanks)
            implements CompiledKernel {
        /** A kernel of a user's source: it meets no other rank. */
        CpuKernel(String entryPoint, JavaKernel body, OptionalInt declaredParameters) {
            this(entryPoint, body, declaredParameters, false);
        }

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
                        "kernel '" + source.entryPoint()
                                + "' has no JAVA implementation, the only dialect the cpu backend runs",
                        ""));
        OptionalInt declared =
                source.javaParameters().map(p -> OptionalInt.of(p.count())).orElse(OptionalInt.empty());
        return new CpuKernel(source.entryPoint(), body, declared);
    }
}
