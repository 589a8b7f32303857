package dev.graphrt.backend.cpu.teeth;

import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.DriverException;
import dev.graphrt.api.KernelSource;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.backend.cpu.CpuBackendProvider;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendCollectives;
import dev.graphrt.spi.BackendCommunicator;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CollectiveCall;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceMemory;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.spi.LaunchCommunicator;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/** Deliberately broken backends, each the real CPU backend with one defect. The kit must catch every one. */
enum BrokenBackends {
    /** A replay runs only the first recorded launch. */
    REPLAYS_ONLY_THE_FIRST_LAUNCH(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public BackendGraph seal(RecordedLaunches recording) {
                    return graphs.seal(new RecordedLaunches(recording
                            .launches()
                            .subList(0, Math.min(1, recording.launches().size()))));
                }
            };
        }
    }),

    /** Buffer contents are snapshotted when the graph is sealed and restored at every replay (ignores rewrites). */
    SNAPSHOTS_INPUTS_AT_CAPTURE(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                private final Map<BackendGraph, Map<DeviceSlice, MemorySegment>> snapshots =
                        new java.util.IdentityHashMap<>();

                @Override
                public BackendGraph seal(RecordedLaunches recording) {
                    Map<DeviceSlice, MemorySegment> copies = new LinkedHashMap<>();
                    for (RecordedLaunch launch : recording.launches()) {
                        for (DeviceSlice slice : launch.bindings().buffers()) {
                            MemorySegment copy = Arena.ofAuto().allocate(slice.length());
                            delegate.read(slice, copy);
                            copies.putIfAbsent(slice, copy);
                        }
                    }
                    BackendGraph graph = graphs.seal(recording);
                    snapshots.put(graph, copies);
                    return graph;
                }

                @Override
                public void replay(BackendGraph graph) {
                    snapshots.getOrDefault(graph, Map.of()).forEach(delegate::write);
                    delegate.replay(graph);
                }
            };
        }
    }),

    /**
     * Offers driver capture (a hardware graph) but runs every launch while "capturing", then replays them too. Its
     * update and rebind work, so the defect is the one named.
     */
    EXECUTES_LAUNCHES_DURING_CAPTURE(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                private List<RecordedLaunch> seen;
                private final DriverCapture driver = new DriverCapture() {
                    @Override
                    public void open(CaptureMode mode) {
                        seen = new ArrayList<>();
                    }

                    @Override
                    public BackendGraph close() {
                        BackendGraph graph = graphs.seal(new RecordedLaunches(seen));
                        seen = null;
                        return graph;
                    }

                    @Override
                    public BackendGraph closeInto(BackendGraph target) {
                        BackendGraph graph = graphs.update(target, new RecordedLaunches(seen));
                        seen = null;
                        return graph;
                    }

                    @Override
                    public BackendGraph rebind(
                            BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
                        return graphs.update(graph, after);
                    }

                    @Override
                    public void abort() {
                        seen = null;
                    }
                };

                @Override
                public CaptureSupport capture() {
                    return driver;
                }

                @Override
                public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
                    delegate.launch(kernel, dims, bindings);
                    if (seen != null) {
                        seen.add(new RecordedLaunch(kernel, dims, bindings));
                    }
                }
            };
        }
    }),

    /** Fences report completion at once, before the work they mark has run; every replay starts 100 ms late. */
    FENCE_RETURNS_BEFORE_THE_WORK_IS_DONE(cpu -> new ForwardingBackend(cpu) {
        private final CompiledKernel sleep = cpu.compiler()
                .compile(KernelSource.named("sleep_100ms").java((args, from, to) -> {
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }));

        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public boolean isComplete(Fence fence) {
                    return true;
                }

                @Override
                public void await(Fence fence) {}

                @Override
                public boolean await(Fence fence, java.time.Duration timeout) {
                    return true;
                }

                @Override
                public void replay(BackendGraph graph) {
                    delegate.launch(sleep, new LaunchDims(1, 1, 1, 1, 1, 1), new Bindings(List.of(), null, 0));
                    delegate.replay(graph);
                    delegate.flush();
                }
            };
        }
    }),

    /**
     * Declares MID_CAPTURE_ALLOCATION, but its device refuses to allocate from prepare() to the window's end (its seal;
     * software graphs hear of no cancel, so after a cancelled window until the next host read or synchronize).
     */
    DECLARES_MID_CAPTURE_ALLOCATION_BUT_CANNOT(cpu -> {
        AtomicBoolean windowOpen = new AtomicBoolean();
        DeviceMemory real = cpu.memory();
        DeviceMemory refusing = new DeviceMemory() {
            @Override
            public long alignment() {
                return real.alignment();
            }

            @Override
            public DeviceAllocation allocate(long bytes) {
                if (windowOpen.get()) {
                    throw new DriverException(
                            "allocate", 900, "CAPTURE_UNSUPPORTED", "cannot allocate in a capture window");
                }
                return real.allocate(bytes);
            }

            @Override
            public void free(DeviceAllocation allocation) {
                real.free(allocation);
            }

            @Override
            public void upload(DeviceSlice dst, MemorySegment src) {
                real.upload(dst, src);
            }
        };
        return new ForwardingBackend(cpu) {
            @Override
            public DeviceMemory memory() {
                return refusing;
            }

            @Override
            BackendStream wrap(BackendStream stream) {
                return new ForwardingStream(stream) {
                    @Override
                    public void onPrepare() {
                        windowOpen.set(true);
                    }

                    @Override
                    public BackendGraph seal(RecordedLaunches recording) {
                        windowOpen.set(false);
                        return graphs.seal(recording);
                    }

                    @Override
                    public void read(DeviceSlice src, MemorySegment dst) {
                        windowOpen.set(false);
                        delegate.read(src, dst);
                    }

                    @Override
                    public void synchronize() {
                        windowOpen.set(false);
                        delegate.synchronize();
                    }
                };
            }
        };
    }),

    /** Reports one parameter more than each kernel declares, so the core refuses every correct launch. */
    REPORTS_ONE_PARAMETER_TOO_MANY(
            cpu -> new MisreportingBackend(cpu, declared -> OptionalInt.of(declared.orElse(0) + 1))),

    /** Reports no parameter count at all, so launches with too few or too many buffers reach the device. */
    REPORTS_NO_PARAMETER_COUNT(cpu -> new MisreportingBackend(cpu, declared -> OptionalInt.empty())),

    /**
     * Declares DEVICE_LOSS_RECOVERY, but reports its lost device as an ordinary driver error, once, and then goes
     * on as if nothing had happened: the runtime is never marked lost.
     */
    REPORTS_DEVICE_LOSS_AS_AN_ORDINARY_ERROR(LosableBackend::new),

    /**
     * Replays a recording's launches last first, as a backend might that runs the branches of a fork/join
     * recording in parallel without keeping the order the streams' waits put them in.
     */
    RUNS_A_RECORDING_OUT_OF_ORDER(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public BackendGraph seal(RecordedLaunches recording) {
                    List<RecordedLaunch> reversed = new ArrayList<>(recording.launches());
                    Collections.reverse(reversed);
                    return graphs.seal(new RecordedLaunches(reversed));
                }
            };
        }
    }),

    /**
     * Frees a graph's memory when the graph is destroyed, as if it owned it: scribbles over every buffer its launches
     * used, although other graphs (of a pool, or sharing inputs) may still use them.
     */
    SCRIBBLES_OVER_A_DESTROYED_GRAPHS_MEMORY(cpu -> new ForwardingBackend(cpu) {
        private final Map<BackendGraph, RecordedLaunches> recordings = new ConcurrentHashMap<>();

        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public BackendGraph seal(RecordedLaunches recording) {
                    BackendGraph graph = graphs.seal(recording);
                    recordings.put(graph, recording);
                    return graph;
                }

                @Override
                public void destroy(BackendGraph graph) {
                    RecordedLaunches recording = recordings.remove(graph);
                    delegate.destroy(graph);
                    if (recording != null) {
                        for (RecordedLaunch launch : recording.launches()) {
                            for (DeviceSlice slice : launch.bindings().buffers()) {
                                byte[] junk = new byte[(int) slice.length()];
                                Arrays.fill(junk, (byte) 0x5A);
                                delegate().memory().upload(slice, MemorySegment.ofArray(junk));
                            }
                        }
                    }
                }
            };
        }

        private Backend delegate() {
            return delegate;
        }
    }),

    /** Says its stream waits on the device for another's event, but waits for nothing. */
    WAITS_FOR_NOTHING(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public boolean waitFor(BackendStream other, Fence fence) {
                    return true;
                }
            };
        }
    }),

    /** Copies device to device, but one word short: the last word of src never reaches dst. */
    COPIES_ONE_WORD_SHORT(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public boolean copy(DeviceSlice src, DeviceSlice dst) {
                    return delegate.copy(src.prefix(src.length() - 4), dst);
                }
            };
        }
    }),

    /**
     * Declares a grid limit in Y of 70,000 while its device takes 65,535, so the core forwards launches its driver
     * refuses ({@code cuLaunchKernel} would answer 1, CUDA_ERROR_INVALID_VALUE).
     */
    OVERSTATES_ITS_GRID_LIMIT(cpu -> new ForwardingBackend(cpu) {
        private static final int DEVICE_MAX_GRID_Y = 65_535;

        @Override
        public DeviceInfo device() {
            DeviceInfo real = delegate.device();
            LaunchLimits l = real.limits();
            return new DeviceInfo(
                    real.backend(),
                    real.name(),
                    real.driver(),
                    real.memoryBytes(),
                    real.computeUnits(),
                    new LaunchLimits(
                            l.maxGridX(),
                            70_000,
                            l.maxGridZ(),
                            l.maxBlockX(),
                            l.maxBlockY(),
                            l.maxBlockZ(),
                            l.maxThreadsPerBlock()));
        }

        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
                    if (dims.gridY() > DEVICE_MAX_GRID_Y) {
                        throw new DriverException(
                                "cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", "grid " + dims.gridY() + " in Y");
                    }
                    delegate.launch(kernel, dims, bindings);
                }
            };
        }
    }),

    /**
     * Declares PROGRAMMATIC_DEPENDENT_LAUNCH and lets kernels that did not opt in start early too: in a replay, such
     * a kernel recorded right after an opted-in one runs before it, as a hardware backend that put the programmatic
     * attribute on every launch would start it as soon as an opted-in predecessor let its dependents start.
     */
    LETS_KERNELS_THAT_DID_NOT_OPT_IN_START_EARLY(cpu -> new ForwardingBackend(cpu) {
        private final Set<CompiledKernel> optedIn = ConcurrentHashMap.newKeySet();

        @Override
        public Set<Capability> capabilities() {
            return declaringAlso(Capability.PROGRAMMATIC_DEPENDENT_LAUNCH);
        }

        @Override
        public KernelCompiler compiler() {
            return compilingThen(delegate.compiler(), (source, kernel) -> {
                if (source.isProgrammaticDependent()) {
                    optedIn.add(kernel);
                }
                return kernel;
            });
        }

        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public BackendGraph seal(RecordedLaunches recording) {
                    List<RecordedLaunch> launches = new ArrayList<>(recording.launches());
                    for (int i = 1; i < launches.size(); i++) {
                        if (optedIn.contains(launches.get(i - 1).kernel())
                                && !optedIn.contains(launches.get(i).kernel())) {
                            Collections.swap(launches, i - 1, i);
                            i++;
                        }
                    }
                    return graphs.seal(new RecordedLaunches(launches));
                }
            };
        }
    }),

    /**
     * Declares COLLECTIVES (the CPU backend does), but each rank of a communicator meets only itself: it reports its
     * rank and size, yet every operation combines its own data alone, as a binding that gave each rank a fresh id
     * would (an all-reduce is then a copy).
     */
    MEETS_ONLY_ITSELF(cpu -> new ForwardingBackend(cpu) {
        @Override
        public Optional<BackendCollectives> collectives() {
            return delegate.collectives().map(real -> new BackendCollectives() {
                @Override
                public byte[] newId() {
                    return real.newId();
                }

                @Override
                public List<BackendCommunicator> open(List<BackendStream> streams, Duration timeout) {
                    List<BackendCommunicator> ranks = new ArrayList<>();
                    for (int rank = 0; rank < streams.size(); rank++) {
                        BackendCommunicator alone = real.open(streams.subList(rank, rank + 1), timeout)
                                .getFirst();
                        ranks.add(claiming((LaunchCommunicator) alone, rank, streams.size()));
                    }
                    return ranks;
                }

                @Override
                public BackendCommunicator join(byte[] id, int rank, int size, BackendStream stream, Duration timeout) {
                    return real.join(id, rank, size, stream, timeout);
                }
            });
        }

        private static LaunchCommunicator claiming(LaunchCommunicator alone, int rank, int size) {
            return new LaunchCommunicator() {
                @Override
                public RecordedLaunch launch(CollectiveCall call) {
                    return alone.launch(call);
                }

                @Override
                public int rank() {
                    return rank;
                }

                @Override
                public int size() {
                    return size;
                }

                @Override
                public void close() {
                    alone.close();
                }
            };
        }
    }),

    /** Declares GRAPH_UPDATE (the CPU backend does), but an update or a rebind keeps the old graph. */
    KEEPS_THE_OLD_GRAPH_ON_UPDATE(cpu -> new ForwardingBackend(cpu) {
        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                /** Both an update and a rebind (a software graph's rebind is an update). */
                @Override
                public BackendGraph update(BackendGraph target, RecordedLaunches recording) {
                    return target;
                }
            };
        }
    });

    private final Function<Backend, Backend> breaker;

    BrokenBackends(Function<Backend, Backend> breaker) {
        this.breaker = breaker;
    }

    Backend open() {
        return breaker.apply(new CpuBackendProvider().open(BackendConfig.defaults()));
    }

    /** A backend whose device the kit can lose on purpose ({@link #lose()}); it reports the loss wrongly. */
    static final class LosableBackend extends ForwardingBackend {
        private final AtomicBoolean lost = new AtomicBoolean();

        LosableBackend(Backend cpu) {
            super(cpu);
        }

        void lose() {
            lost.set(true);
        }

        @Override
        public Set<Capability> capabilities() {
            return declaringAlso(Capability.DEVICE_LOSS_RECOVERY);
        }

        @Override
        BackendStream wrap(BackendStream stream) {
            return new ForwardingStream(stream) {
                @Override
                public List<Throwable> drainErrors() {
                    List<Throwable> errors = new ArrayList<>(delegate.drainErrors());
                    if (lost.compareAndSet(true, false)) {
                        errors.add(new DriverException("synchronize", 999, "DEVICE_GONE", "the device was lost"));
                    }
                    return errors;
                }
            };
        }
    }
}
