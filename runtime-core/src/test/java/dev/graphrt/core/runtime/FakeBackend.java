package dev.graphrt.core.runtime;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.Dialect;
import dev.graphrt.api.GraphKind;
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
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** A backend that runs nothing but counts what it is asked, over a {@link CountingDeviceMemory}. */
final class FakeBackend implements Backend {
    final CountingDeviceMemory memory = new CountingDeviceMemory();
    final AtomicInteger launches = new AtomicInteger();
    /** The bindings of the last eager launch. */
    final java.util.concurrent.atomic.AtomicReference<Bindings> lastEagerBindings =
            new java.util.concurrent.atomic.AtomicReference<>();

    final AtomicInteger replays = new AtomicInteger();
    final AtomicInteger destroyed = new AtomicInteger();
    final AtomicInteger openStreams = new AtomicInteger();
    final AtomicInteger fences = new AtomicInteger();
    /** What {@code isComplete} answers for every fence: false holds back the releases behind them. */
    volatile boolean fencesComplete = true;
    /** Replays a hardware capture recorded as child nodes (the driver's part of NESTED_GRAPHS). */
    final AtomicInteger childNodesRecorded = new AtomicInteger();

    private final GraphKind kind;
    private final Set<Capability> capabilities;
    boolean closed;

    /** A software backend that may grow the pool mid-capture. */
    FakeBackend() {
        this(GraphKind.SOFTWARE, Set.of(Capability.MID_CAPTURE_ALLOCATION));
    }

    /** A backend of {@code kind} declaring {@code capabilities}; a hardware one fakes the driver's capture. */
    FakeBackend(GraphKind kind, Set<Capability> capabilities) {
        this.kind = kind;
        this.capabilities = Set.copyOf(capabilities);
    }

    /** A hardware graph as the fake driver recorded it. */
    record DriverGraph(int nodeCount) implements BackendGraph {}

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

    /** A kernel declaring the parameters its Java source declared (none: unchecked). */
    record Kernel(String entryPoint, java.util.OptionalInt declaredParameters) implements CompiledKernel {
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
        return capabilities;
    }

    @Override
    public DeviceMemory memory() {
        return watchedMemory;
    }

    /** Device frees made while some stream's fake driver capture was open: a real driver invalidates the capture. */
    final AtomicInteger freesWhileCapturing = new AtomicInteger();

    private final AtomicInteger capturing = new AtomicInteger();
    private final DeviceMemory watchedMemory = new DeviceMemory() {
        @Override
        public long alignment() {
            return memory.alignment();
        }

        @Override
        public DeviceAllocation allocate(long bytes) {
            return memory.allocate(bytes);
        }

        @Override
        public void free(DeviceAllocation allocation) {
            if (capturing.get() > 0) {
                freesWhileCapturing.incrementAndGet();
            }
            memory.free(allocation);
        }

        @Override
        public void upload(DeviceSlice dst, MemorySegment src) {
            memory.upload(dst, src);
        }
    };

    @Override
    public KernelCompiler compiler() {
        return new KernelCompiler() {
            @Override
            public List<Dialect> dialects() {
                return List.of(Dialect.JAVA);
            }

            @Override
            public CompiledKernel compile(KernelSource source) {
                return new Kernel(
                        source.entryPoint(),
                        source.javaParameters()
                                .map(p -> java.util.OptionalInt.of(p.count()))
                                .orElse(java.util.OptionalInt.empty()));
            }
        };
    }

    @Override
    public BackendStream openStream() {
        openStreams.incrementAndGet();
        return new BackendStream() {
            private int captured = -1;
            /** A hardware fake's driver capture counts what it records; a software one keeps the recording. */
            private final CaptureSupport capture = kind == GraphKind.HARDWARE
                    ? new DriverCapture() {
                        @Override
                        public void open(dev.graphrt.api.CaptureMode mode) {
                            captured = 0;
                            capturing.incrementAndGet();
                        }

                        @Override
                        public BackendGraph close() {
                            BackendGraph graph = new DriverGraph(captured);
                            captured = -1;
                            capturing.decrementAndGet();
                            return graph;
                        }

                        @Override
                        public BackendGraph closeInto(BackendGraph target) {
                            return close();
                        }

                        @Override
                        public BackendGraph rebind(
                                BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
                            return graph;
                        }

                        @Override
                        public void abort() {
                            if (captured >= 0) {
                                capturing.decrementAndGet();
                            }
                            captured = -1;
                        }
                    }
                    : new SoftwareGraphs() {};

            @Override
            public CaptureSupport capture() {
                return capture;
            }

            @Override
            public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
                if (captured >= 0) {
                    captured++;
                } else {
                    launches.incrementAndGet();
                    lastEagerBindings.set(bindings);
                }
            }

            @Override
            public void write(DeviceSlice dst, MemorySegment src) {}

            @Override
            public void read(DeviceSlice src, MemorySegment dst) {
                dst.fill((byte) 0);
            }

            @Override
            public Fence recordFence() {
                fences.incrementAndGet();
                return new Fence() {};
            }

            @Override
            public boolean isComplete(Fence fence) {
                return fencesComplete;
            }

            @Override
            public void await(Fence fence) {}

            @Override
            public void synchronize() {}

            @Override
            public void replay(BackendGraph graph) {
                if (captured >= 0) {
                    captured++;
                    childNodesRecorded.incrementAndGet();
                } else {
                    replays.incrementAndGet();
                }
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
