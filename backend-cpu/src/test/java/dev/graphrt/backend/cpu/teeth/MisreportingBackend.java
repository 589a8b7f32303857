package dev.graphrt.backend.cpu.teeth;

import dev.graphrt.api.Dialect;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * The CPU backend with its kernels' declared parameter counts misreported: {@code misreport} maps the true
 * count (what the Java kernel declared) to the one the backend reports. The streams run the real kernels.
 */
final class MisreportingBackend extends ForwardingBackend {
    private final UnaryOperator<OptionalInt> misreport;

    MisreportingBackend(Backend delegate, UnaryOperator<OptionalInt> misreport) {
        super(delegate);
        this.misreport = misreport;
    }

    /** A real kernel reporting {@code declaredParameters} in place of its own. */
    private record Misreported(CompiledKernel real, OptionalInt declaredParameters) implements CompiledKernel {
        @Override
        public String entryPoint() {
            return real.entryPoint();
        }

        @Override
        public Dialect dialect() {
            return real.dialect();
        }

        static CompiledKernel unwrap(CompiledKernel kernel) {
            return kernel instanceof Misreported m ? m.real : kernel;
        }
    }

    @Override
    public KernelCompiler compiler() {
        return compilingThen(
                delegate.compiler(),
                (source, kernel) -> new Misreported(kernel, misreport.apply(kernel.declaredParameters())));
    }

    @Override
    BackendStream wrap(BackendStream stream) {
        return new ForwardingStream(stream) {
            @Override
            public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
                delegate.launch(Misreported.unwrap(kernel), dims, bindings);
            }

            @Override
            public BackendGraph seal(RecordedLaunches recording) {
                return graphs.seal(new RecordedLaunches(recording.launches().stream()
                        .map(l -> new RecordedLaunch(Misreported.unwrap(l.kernel()), l.dims(), l.bindings()))
                        .toList()));
            }
        };
    }
}
