package dev.graphrt.backend.cpu.teeth;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A backend that forwards everything to a real one; each broken backend overrides the one thing it breaks. */
class ForwardingBackend implements Backend {
    final Backend delegate;

    ForwardingBackend(Backend delegate) {
        this.delegate = delegate;
    }

    BackendStream wrap(BackendStream stream) {
        return new ForwardingStream(stream);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public DeviceInfo device() {
        return delegate.device();
    }

    @Override
    public Optional<BackendCollectives> collectives() {
        return delegate.collectives();
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public DeviceMemory memory() {
        return delegate.memory();
    }

    @Override
    public KernelCompiler compiler() {
        return delegate.compiler();
    }

    /** The delegate's capabilities and {@code extra}: what a broken backend that declares one more reports. */
    Set<Capability> declaringAlso(Capability extra) {
        java.util.EnumSet<Capability> declared = java.util.EnumSet.of(extra);
        declared.addAll(delegate.capabilities());
        return Set.copyOf(declared);
    }

    /** {@code real}, with each compiled kernel passed through {@code after} (given its source) before it is returned. */
    static KernelCompiler compilingThen(
            KernelCompiler real, java.util.function.BiFunction<KernelSource, CompiledKernel, CompiledKernel> after) {
        return new KernelCompiler() {
            @Override
            public List<Dialect> dialects() {
                return real.dialects();
            }

            @Override
            public CompiledKernel compile(KernelSource source) {
                return after.apply(source, real.compile(source));
            }
        };
    }

    @Override
    public BackendStream openStream() {
        return wrap(delegate.openStream());
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * A stream forwarding to a real one. Like the cpu stream it wraps, it is its own {@link SoftwareGraphs}, forwarding
     * to the real stream's ({@link #graphs}); a broken stream overrides {@link #seal}, {@link #update}, or
     * {@link #capture()} itself.
     */
    static class ForwardingStream implements BackendStream, SoftwareGraphs {
        final BackendStream delegate;
        /** The real stream's software graphs. */
        final SoftwareGraphs graphs;

        ForwardingStream(BackendStream delegate) {
            this.delegate = delegate;
            this.graphs = (SoftwareGraphs) delegate.capture();
        }

        @Override
        public CaptureSupport capture() {
            return this;
        }

        @Override
        public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
            delegate.launch(kernel, dims, bindings);
        }

        @Override
        public void write(DeviceSlice dst, MemorySegment src) {
            delegate.write(dst, src);
        }

        @Override
        public void read(DeviceSlice src, MemorySegment dst) {
            delegate.read(src, dst);
        }

        @Override
        public boolean copy(DeviceSlice src, DeviceSlice dst) {
            return delegate.copy(src, dst);
        }

        @Override
        public void flush() {
            delegate.flush();
        }

        @Override
        public Fence recordFence() {
            return delegate.recordFence();
        }

        @Override
        public boolean isComplete(Fence fence) {
            return delegate.isComplete(fence);
        }

        @Override
        public void await(Fence fence) {
            delegate.await(fence);
        }

        @Override
        public boolean await(Fence fence, java.time.Duration timeout) {
            return delegate.await(fence, timeout);
        }

        @Override
        public void synchronize() {
            delegate.synchronize();
        }

        @Override
        public boolean waitFor(BackendStream other, Fence fence) {
            return delegate.waitFor(other instanceof ForwardingStream wrapped ? wrapped.delegate : other, fence);
        }

        @Override
        public List<Throwable> drainErrors() {
            return delegate.drainErrors();
        }

        @Override
        public void onPrepare() {
            delegate.onPrepare();
        }

        @Override
        public BackendGraph seal(RecordedLaunches recording) {
            return graphs.seal(recording);
        }

        @Override
        public BackendGraph update(BackendGraph target, RecordedLaunches recording) {
            return graphs.update(target, recording);
        }

        @Override
        public void replay(BackendGraph graph) {
            delegate.replay(graph);
        }

        @Override
        public void destroy(BackendGraph graph) {
            delegate.destroy(graph);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
