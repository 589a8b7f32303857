package dev.graphrt.backend.cpu.safety;

import dev.graphrt.api.Capability;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.DeviceLostException;
import dev.graphrt.api.LaunchDims;
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
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.KernelCompiler;
import dev.graphrt.spi.LaunchCommunicator;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real cpu backend behind a wrapper that can make any SPI hook fail (on its n-th call from now, once) and
 * can make fences hang, and that counts device allocations and frees. Faults are what a driver would do: a
 * hook throws a {@link Fault}; a stuck fence never reports completion.
 */
final class FaultInjectingBackend implements Backend {

    /** Every SPI hook a fault can be injected into. */
    enum Hook {
        ON_PREPARE,
        SEAL,
        LAUNCH,
        WRITE,
        READ,
        ALLOCATE,
        FREE,
        UPLOAD,
        RECORD_FENCE,
        IS_COMPLETE,
        AWAIT,
        SYNCHRONIZE,
        REPLAY,
        DESTROY,
        STREAM_CLOSE,
        BACKEND_CLOSE,
        UPDATE,
        WAIT_FOR,
        /** {@code BackendCollectives.open} and {@code join}: making a communicator. */
        COMMUNICATOR_OPEN,
        /** {@code LaunchCommunicator.launch}: turning a collective into a launch. */
        COLLECTIVE,
        COMMUNICATOR_CLOSE
    }

    /** The failure an injected fault throws. */
    static final class Fault extends RuntimeException {
        final Hook hook;

        Fault(Hook hook) {
            super("injected fault in " + hook);
            this.hook = hook;
        }
    }

    private final Backend delegate;
    private final Map<Hook, Integer> armed = new EnumMap<>(Hook.class);
    private final Map<Hook, Integer> sticky = new EnumMap<>(Hook.class);
    private final Map<Hook, AtomicInteger> calls = new EnumMap<>(Hook.class);
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong frees = new AtomicLong();
    private final AtomicLong liveBytes = new AtomicLong();
    /** Graphs sealed and not yet destroyed successfully. */
    private final AtomicInteger liveGraphs = new AtomicInteger();

    private final AtomicInteger liveCommunicators = new AtomicInteger();

    private volatile boolean fencesStuck;
    private volatile boolean writesOutOfMemory;
    private volatile String overrunKernel;
    /** Runs once, on the reading thread, just before the next read reaches the real backend. */
    private volatile Runnable beforeNextRead;

    private volatile int overrunBytes;
    private final AtomicLong maxWrittenBetweenWaits = new AtomicLong();
    private final AtomicLong writtenSinceWait = new AtomicLong();
    private final Memory memory;

    FaultInjectingBackend(Map<String, String> options) {
        this.delegate = new CpuBackendProvider().open(new BackendConfig(0, options));
        this.memory = new Memory(delegate.memory());
        for (Hook hook : Hook.values()) {
            calls.put(hook, new AtomicInteger());
        }
    }

    FaultInjectingBackend() {
        this(Map.of("cpu.threads", "2"));
    }

    /** The {@code nth} call of {@code hook} from now on (1 = the next) throws a {@link Fault}, once. */
    synchronized void failOn(Hook hook, int nth) {
        armed.put(hook, calls.get(hook).get() + nth);
    }

    /** From the {@code nth} call of {@code hook} on, every call of every hook fails with a sticky device error. */
    synchronized void loseDeviceOn(Hook hook, int nth) {
        sticky.put(hook, calls.get(hook).get() + nth);
    }

    synchronized void disarm() {
        armed.clear();
        sticky.clear();
        lost = false;
        fencesStuck = false;
    }

    /** While set, staging a write throws the JVM's OutOfMemoryError, as a full heap or direct-memory limit would. */
    void failWritesWithOutOfMemory(boolean fail) {
        writesOutOfMemory = fail;
    }

    /**
     * Every launch of the kernel named {@code entryPoint} is followed, in stream order, by a write of {@code bytes}
     * garbage bytes just past its first buffer's end: what an out-of-bounds kernel does on a GPU.
     */
    void overrunAfter(String entryPoint, int bytes) {
        overrunKernel = entryPoint;
        overrunBytes = bytes;
    }

    /** Runs {@code action} once, on the reading thread, at the next read (what another thread may do then). */
    void beforeNextRead(Runnable action) {
        beforeNextRead = action;
    }

    /** While set, no fence completes: isComplete is false and a bounded await times out. */
    void stickFences(boolean stuck) {
        fencesStuck = stuck;
    }

    private boolean lost;
    /** The last fault thrown, for where it was thrown. */
    private volatile Fault lastFault;

    /** The fault thrown last, or null. */
    Fault lastFault() {
        return lastFault;
    }

    private void enter(Hook hook) {
        int call = calls.get(hook).incrementAndGet();
        synchronized (this) {
            Integer lostAt = sticky.get(hook);
            if (lostAt != null && lostAt == call) {
                lost = true;
            }
            if (lost && hook != Hook.STREAM_CLOSE && hook != Hook.BACKEND_CLOSE && hook != Hook.FREE) {
                throw new DeviceLostException("injected " + hook, 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
            }
            Integer at = armed.get(hook);
            if (at != null && at == call) {
                armed.remove(hook);
                Fault fault = new Fault(hook);
                lastFault = fault;
                throw fault;
            }
        }
    }

    int calls(Hook hook) {
        return calls.get(hook).get();
    }

    long allocations() {
        return allocations.get();
    }

    long frees() {
        return frees.get();
    }

    /** Backend graphs sealed (by seal or update) and not destroyed: what the backend still holds. */
    int liveGraphs() {
        return liveGraphs.get();
    }

    long liveBytes() {
        return liveBytes.get();
    }

    /** The most bytes written to any stream between two completed waits for its work. */
    long maxWrittenBetweenWaits() {
        return maxWrittenBetweenWaits.get();
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public DeviceInfo device() {
        return delegate.device();
    }

    @Override
    public Optional<BackendCollectives> collectives() {
        return delegate.collectives().map(Collectives::new);
    }

    /** Communicators the backend made and has not closed. */
    int liveCommunicators() {
        return liveCommunicators.get();
    }

    private final class Collectives implements BackendCollectives {
        private final BackendCollectives real;

        Collectives(BackendCollectives real) {
            this.real = real;
        }

        @Override
        public byte[] newId() {
            return real.newId();
        }

        @Override
        public List<BackendCommunicator> open(List<BackendStream> streams, Duration timeout) {
            enter(Hook.COMMUNICATOR_OPEN);
            return real.open(streams, timeout).stream()
                    .map(c -> (BackendCommunicator) new Communicator((LaunchCommunicator) c))
                    .toList();
        }

        @Override
        public BackendCommunicator join(byte[] id, int rank, int size, BackendStream stream, Duration timeout) {
            enter(Hook.COMMUNICATOR_OPEN);
            return new Communicator((LaunchCommunicator) real.join(id, rank, size, stream, timeout));
        }
    }

    private final class Communicator implements LaunchCommunicator {
        private final LaunchCommunicator real;

        Communicator(LaunchCommunicator real) {
            this.real = real;
            liveCommunicators.incrementAndGet();
        }

        @Override
        public RecordedLaunch launch(CollectiveCall call) {
            enter(Hook.COLLECTIVE);
            return real.launch(call);
        }

        @Override
        public int rank() {
            return real.rank();
        }

        @Override
        public int size() {
            return real.size();
        }

        @Override
        public void close() {
            try {
                enter(Hook.COMMUNICATOR_CLOSE);
            } finally {
                real.close();
                liveCommunicators.decrementAndGet();
            }
        }
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public DeviceMemory memory() {
        return memory;
    }

    @Override
    public KernelCompiler compiler() {
        return delegate.compiler();
    }

    @Override
    public BackendStream openStream() {
        return new Stream(delegate.openStream());
    }

    @Override
    public void close() {
        try {
            enter(Hook.BACKEND_CLOSE);
        } finally {
            delegate.close();
        }
    }

    private final class Memory implements DeviceMemory {
        private final DeviceMemory real;

        Memory(DeviceMemory real) {
            this.real = real;
        }

        @Override
        public long alignment() {
            return real.alignment();
        }

        @Override
        public DeviceAllocation allocate(long bytes) {
            enter(Hook.ALLOCATE);
            DeviceAllocation allocation = real.allocate(bytes);
            allocations.incrementAndGet();
            liveBytes.addAndGet(allocation.byteSize());
            return allocation;
        }

        @Override
        public void free(DeviceAllocation allocation) {
            enter(Hook.FREE);
            real.free(allocation);
            frees.incrementAndGet();
            liveBytes.addAndGet(-allocation.byteSize());
        }

        @Override
        public void upload(DeviceSlice dst, MemorySegment src) {
            enter(Hook.UPLOAD);
            real.upload(dst, src);
        }
    }

    /** The cpu stream behind the hooks; like it, its own {@link SoftwareGraphs}. */
    private final class Stream implements BackendStream, SoftwareGraphs {
        private final BackendStream real;
        private final SoftwareGraphs realGraphs;

        Stream(BackendStream real) {
            this.real = real;
            this.realGraphs = (SoftwareGraphs) real.capture();
        }

        @Override
        public CaptureSupport capture() {
            return this;
        }

        @Override
        public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
            enter(Hook.LAUNCH);
            real.launch(kernel, dims, bindings);
            if (kernel.entryPoint().equals(overrunKernel) && !bindings.buffers().isEmpty()) {
                DeviceSlice target = bindings.buffers().get(0);
                byte[] garbage = new byte[overrunBytes];
                java.util.Arrays.fill(garbage, (byte) 0x77);
                real.write(
                        new DeviceSlice(target.allocation(), target.offset() + target.length(), garbage.length),
                        MemorySegment.ofArray(garbage));
            }
        }

        @Override
        public void write(DeviceSlice dst, MemorySegment src) {
            enter(Hook.WRITE);
            if (writesOutOfMemory) {
                throw new OutOfMemoryError("Cannot reserve " + src.byteSize() + " bytes of direct buffer memory");
            }
            real.write(dst, src);
            maxWrittenBetweenWaits.accumulateAndGet(writtenSinceWait.addAndGet(src.byteSize()), Math::max);
        }

        @Override
        public void read(DeviceSlice src, MemorySegment dst) {
            enter(Hook.READ);
            Runnable action = beforeNextRead;
            if (action != null) {
                beforeNextRead = null;
                action.run();
            }
            real.read(src, dst);
        }

        @Override
        public void flush() {
            real.flush();
        }

        @Override
        public Fence recordFence() {
            enter(Hook.RECORD_FENCE);
            return real.recordFence();
        }

        @Override
        public boolean isComplete(Fence fence) {
            enter(Hook.IS_COMPLETE);
            return !fencesStuck && real.isComplete(fence);
        }

        @Override
        public void await(Fence fence) {
            enter(Hook.AWAIT);
            real.await(fence);
            writtenSinceWait.set(0);
        }

        @Override
        public boolean await(Fence fence, Duration timeout) {
            enter(Hook.AWAIT);
            if (fencesStuck) {
                sleep(timeout);
                return false;
            }
            boolean done = real.await(fence, timeout);
            if (done) {
                writtenSinceWait.set(0);
            }
            return done;
        }

        @Override
        public boolean waitFor(BackendStream other, Fence fence) {
            enter(Hook.WAIT_FOR);
            return real.waitFor(other instanceof Stream wrapped ? wrapped.real : other, fence);
        }

        @Override
        public void synchronize() {
            enter(Hook.SYNCHRONIZE);
            real.synchronize();
            writtenSinceWait.set(0);
        }

        @Override
        public List<Throwable> drainErrors() {
            return real.drainErrors();
        }

        @Override
        public void onPrepare() {
            enter(Hook.ON_PREPARE);
            real.onPrepare();
        }

        private BackendGraph counted(BackendGraph before, BackendGraph after) {
            if (after != before) {
                liveGraphs.incrementAndGet();
            }
            return after;
        }

        @Override
        public BackendGraph seal(RecordedLaunches recording) {
            enter(Hook.SEAL);
            BackendGraph sealed = realGraphs.seal(recording);
            liveGraphs.incrementAndGet();
            return sealed;
        }

        /** An update, and a rebind (a software graph's rebind is an update with the patched recording). */
        @Override
        public BackendGraph update(BackendGraph target, RecordedLaunches recording) {
            enter(Hook.UPDATE);
            return counted(target, realGraphs.update(target, recording));
        }

        @Override
        public void replay(BackendGraph graph) {
            enter(Hook.REPLAY);
            real.replay(graph);
        }

        @Override
        public void destroy(BackendGraph graph) {
            enter(Hook.DESTROY);
            real.destroy(graph);
            liveGraphs.decrementAndGet();
        }

        @Override
        public void close() {
            try {
                enter(Hook.STREAM_CLOSE);
            } finally {
                real.close();
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
