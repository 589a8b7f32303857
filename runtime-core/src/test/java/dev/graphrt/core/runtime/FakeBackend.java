package dev.graphrt.core.runtime;

import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.core.memory.CountingDeviceMemory;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendProvider;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.Capability;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.GraphKind;
import dev.graphrt.spi.KernelCompiler;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** A backend that runs nothing but counts what it is asked, over a {@link CountingDeviceMemory}. */
final class FakeBackend implements Backend {
    final CountingDeviceMemory memory = new CountingDeviceMemory();
    final AtomicInteger launches = new AtomicInteger();
    final AtomicInteger replays = new AtomicInteger();
    final AtomicInteger destroyed = new AtomicInteger();
    final AtomicInteger openStreams = new AtomicInteger();
    boolean closed;

    record Provider(FakeBackend backend) implements BackendProvider {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public int priority() {
            return 1000;
        }

        @Override
        public Availability probe() {
            return Availability.available("counts calls");
        }

        @Override
        public Backend open(BackendConfig config) {
            return backend;
        }
    }

    record Kernel(String entryPoint) implements CompiledKernel {
        @Override
        public Dialect dialect() {
            return Dialect.JAVA;
        }
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public DeviceInfo device() {
        return new DeviceInfo("fake", "counting device", "1", 1L << 30, 1);
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.MID_CAPTURE_ALLOCATION, Capability.CAPTURE_MODE_THREAD_LOCAL);
    }

    @Override
    public GraphKind graphKind() {
        return GraphKind.SOFTWARE;
    }

    @Override
    public DeviceMemory memory() {
        return memory;
    }

    @Override
    public KernelCompiler compiler() {
        return new KernelCompiler() {
            @Override
            public List<Dialect> dialects() {
                return List.of(Dialect.JAVA);
            }

            @Override
            public CompiledKernel compile(KernelSource source) {
                return new Kernel(source.entryPoint());
            }
        };
    }

    @Override
    public BackendStream openStream() {
        openStreams.incrementAndGet();
        return new BackendStream() {
            @Override
            public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
                launches.incrementAndGet();
            }

            @Override
            public void write(DeviceSlice dst, MemorySegment src) {
            }

            @Override
            public void read(DeviceSlice src, MemorySegment dst) {
                dst.fill((byte) 0);
            }

            @Override
            public Fence recordFence() {
                return new Fence() {
                };
            }

            @Override
            public boolean isComplete(Fence fence) {
                return true;
            }

            @Override
            public void await(Fence fence) {
            }

            @Override
            public void synchronize() {
            }

            @Override
            public void replay(BackendGraph graph) {
                replays.incrementAndGet();
            }

            @Override
            public void destroy(BackendGraph graph) {
                destroyed.incrementAndGet();
            }

            @Override
            public void close() {
                openStreams.decrementAndGet();
            }
        };
    }

    @Override
    public void close() {
        closed = true;
    }
}
