package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.Graph;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.core.events.ReplayEvent;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.internal.ApiAccess;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A stream's work: allocate, write, read, launch, replay, flush and synchronize. Each checks its input, asks
 * {@link OperationPolicy} what the current state allows, holds what it uses (before the backend sees the storage),
 * and hands the backend exactly what it must do; while the stream takes part in another stream's capture its work
 * is recorded by that origin's lifecycle.
 */
final class StreamWork {
    private final StreamPeer self;
    private final long id;
    private final StreamHost host;
    private final OperationPolicy policy;
    private final BackendStream backend;
    private final StreamGuard guard;
    private final Membership membership;
    private final PooledWindow window;
    private final StreamMemory memory;
    private final CaptureLifecycle lifecycle;
    private final CheckedWork checked;
    private final ReplayBlame blame;
    private final ReplayClock replayClock = new ReplayClock();

    StreamWork(StreamPeer self, StreamHost host, StreamGuard guard, Membership membership, PooledWindow window,
               CheckedWork checked, ReplayBlame blame) {
        this.self = self;
        this.id = self.id();
        this.host = host;
        this.policy = host.policy();
        this.backend = self.backendStream();
        this.guard = guard;
        this.membership = membership;
        this.window = window;
        this.memory = self.memory();
        this.lifecycle = self.lifecycle();
        this.checked = checked;
        this.blame = blame;
    }

    // ---- memory ------------------------------------------------------------------------------------

    Buffer allocate(long bytes) {
        host.checkOpen("allocate");
        host.checkAllocationSize(bytes, "bytes");
        return guard.call("allocate", null, () -> {
            boolean own = !membership.isMember();
            CoreBuffer view = own ? window.borrow(bytes, lifecycle.current(), checked.on()) : null;
            if (view != null) {
                return view;
            }
            PoolSlice slice = allocateSlice(bytes + checked.extraBytes());
            CoreBuffer buffer;
            try {
                buffer = checked.buffer(host.scope(), host.nextBufferId(), slice, bytes);
            } catch (RuntimeException failure) {
                host.memory().release(slice);
                throw failure;
            }
            if (own) {
                window.allocated(buffer, lifecycle.current());
            }
            return buffer;
        });
    }

    /**
     * A slice from the memory that serves this stream now: the origin's window while joined to its capture, the
     * origin's window while taking part in its warm-up, else this stream's own.
     */
    private PoolSlice allocateSlice(long bytes) {
        StreamPeer origin = membership.lockOrigin();
        try {
            if (origin != null) {
                return origin.memory().allocate(bytes);
            }
        } finally {
            membership.unlockOrigin(origin);
        }
        StreamPeer warmup = membership.warmupOrigin();
        if (warmup != null) {
            warmup.lock().lock(); // this stream's lock, then the origin's: the fork/join order
            try {
                if (membership.warmupOrigin() == warmup
                        && policy.primesInWarmup(lifecycle.current(), warmup.lifecycle().current())) {
                    return warmup.memory().allocate(bytes); // primed in the warm-up's window
                }
            } finally {
                warmup.lock().unlock();
            }
        }
        return memory.allocate(bytes);
    }

    Buffer upload(MemorySegment data) {
        if (data.byteSize() == 0) {
            throw new IllegalArgumentException("data must not be empty");
        }
        Buffer buffer = allocate(data.byteSize());
        try {
            write(buffer, data);
        } catch (RuntimeException failure) {
            buffer.close();
            throw failure;
        }
        return buffer;
    }

    void write(Buffer dst, MemorySegment data) {
        host.checkOpen("write");
        Objects.requireNonNull(data, "data");
        HostSegments.checkReadable(data, "data");
        CoreBuffer buffer = host.checkBuffer(dst, "dst");
        if (data.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException("data has " + data.byteSize() + " bytes but dst " + buffer
                    + " holds only " + buffer.byteSize());
        }
        if (data.byteSize() == 0) {
            return;
        }
        guard.callJoined("write", null, origin -> {
            DeviceSlice target = buffer.storage().prefix(data.byteSize());
            if (origin != null) {
                membership.rejectOnOrigin(origin, "write of " + data.byteSize() + " bytes into " + buffer);
                return null;
            }
            switch (policy.write(lifecycle.current())) {
                case RUN -> {
                    memory.beforeStagedWrite(data.byteSize());
                    memory.hold(buffer, "dst");
                    memory.stagedWrite(target, data);
                }
                case RECORD -> {
                    memory.hold(buffer, "dst");
                    memory.stagedWrite(target, data);
                    lifecycle.noteRecordedWrite();
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("write of " + data.byteSize() + " bytes into " + buffer
                        + " (the " + policy.backend() + " backend lacks RECORDS_WRITES: write before prepare() or "
                        + "between replays)");
            }
            return null;
        });
    }

    void read(Buffer src, MemorySegment dst) {
        host.checkOpen("read");
        Objects.requireNonNull(dst, "dst");
        HostSegments.checkWritable(dst, "dst");
        CoreBuffer buffer = host.checkBuffer(src, "src");
        if (dst.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException("dst has " + dst.byteSize() + " bytes but src " + buffer + " holds only "
                    + buffer.byteSize());
        }
        guard.run("read", null, () -> {
            checkHostSync("read");
            memory.hold(buffer, "src");
            blame.hostSync(() -> {
                memory.awaitAll("the work before a read of " + buffer);
                if (dst.byteSize() > 0) {
                    backend.read(buffer.storage().prefix(dst.byteSize()), dst);
                }
            });
            Optional<BufferOverrunException> overrun = checked.check(backend);
            memory.afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        });
    }

    /** The two host-sync rules, always asked together: not while this stream records, nor beside a capture that forbids it. */
    void checkHostSync(String operation) {
        policy.checkHostSync(membership.state(), operation, id);
        policy.checkHostSyncBesideCapture(host.anotherCaptureForbidsDeviceCalls(id), operation, id);
    }

    // ---- work --------------------------------------------------------------------------------------

    void launch(Kernel kernel, LaunchDims dims, KernelArgs args) {
        host.checkOpen("launch");
        CoreKernel compiled = host.checkKernel(kernel);
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(args, "args");
        List<Buffer> buffers = args.buffers();
        CoreBuffer[] used = new CoreBuffer[buffers.size()];
        DeviceSlice[] slices = new DeviceSlice[used.length];
        for (int i = 0; i < used.length; i++) {
            used[i] = host.checkBuffer(buffers.get(i), "args.buffers[" + i + "]");
            slices[i] = used[i].storage();
        }
        LaunchArguments.check(compiled.compiled(), args); // before the info lookup, any hold or any enqueueing
        guard.callJoined("launch", compiled, origin -> {
            StreamMemory target = membership.recordingMemory();
            CaptureLifecycle recording = membership.recording();
            // The info lookup may allocate, and an allocation is a flush point that fences the epoch: the holds
            // are taken after it, so no fence can fall between them and the launch they protect.
            int[] words = ApiAccess.infoWords(args);
            DeviceSlice info = target.info(words);
            for (int i = 0; i < used.length; i++) {
                target.hold(used[i], "args.buffers[" + i + "]");
            }
            if (checked.on()) {
                checked.launched(compiled.compiled().entryPoint() + " " + dims, used);
            }
            Bindings bindings = new Bindings(List.of(slices), info, words.length);
            switch (policy.launch(recording.current())) {
                case RUN -> backend.launch(compiled.compiled(), dims, bindings);
                case RECORD_IN_DRIVER -> {
                    backend.launch(compiled.compiled(), dims, bindings);
                    recording.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
                }
                case RECORD_IN_CORE -> recording.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
            }
            membership.countOperation();
            return null;
        });
    }

    /**
     * Replays a graph this stream sealed. Inside a recording the policy decides: the replay becomes part of the
     * new graph (which then holds the child and its buffers), or is rejected lazily.
     */
    void replay(Graph graph) {
        host.checkOpen("replay");
        CoreGraph target = host.checkGraph(graph, "graph");
        if (target.owner() != self) {
            throw new IllegalArgumentException("graph: " + target + " was captured on stream #"
                    + target.owner().id() + "; replay it there, not on stream #" + id);
        }
        guard.callJoined("replay", target, origin -> {
            if (target.isClosed()) {
                throw new IllegalStateException("graph: " + target + " is closed and cannot be replayed");
            }
            if (origin != null) {
                membership.rejectOnOrigin(origin, "replay of " + target);
                return null;
            }
            window.checkReplay(target, lifecycle.current());
            switch (policy.replay(lifecycle.current())) {
                case RUN -> {
                    replayNow(target);
                    checked.replayed(target);
                }
                case RECORD_IN_DRIVER -> {
                    memory.holdChild(target);
                    backend.replay(target.backendGraph());
                    lifecycle.recordChild(target.window());
                }
                case RECORD_IN_CORE -> {
                    memory.holdChild(target);
                    lifecycle.recordChild(target.window());
                }
                case DEFER_REJECTION -> lifecycle.rejectLazily("replay of " + target + " (the " + policy.backend()
                        + " backend lacks NESTED_GRAPHS: replay it before prepare() or after endCapture())");
            }
            if (policy.countsAsRecorded(lifecycle.current())) {
                membership.countOperation();
            }
            return null;
        });
    }

    private void replayNow(CoreGraph target) {
        ReplayEvent event = new ReplayEvent();
        event.begin();
        backend.replay(target.backendGraph());
        target.countReplay();
        blame.replayed(target.id());
        Observers observers = host.observers();
        if (observers.active()) {
            observers.replayed(id, target.id());
            replayClock.enqueued(target.id());
        }
        if (event.shouldCommit()) {
            event.graph = target.id();
            event.commit();
        }
    }

    void flush() {
        guard.run("flush", null, () -> {
            policy.checkHostSync(membership.state(), "flush", id);
            backend.flush();
            memory.flushPoint();
        });
    }

    void synchronize() {
        try {
            guard.run("synchronize", null, () -> {
                checkHostSync("synchronize");
                memory.flushPoint();
                blame.hostSync(() -> {
                    memory.awaitAll("synchronize");
                    backend.synchronize();
                });
                Optional<BufferOverrunException> overrun = checked.check(backend);
                memory.afterSync();
                overrun.ifPresent(failure -> {
                    throw failure;
                });
                memory.takeFailures().ifPresent(failure -> {
                    throw failure;
                });
                replayClock.completed(id, host.observers());
            });
        } catch (RuntimeException failure) {
            replayClock.clear();
            throw failure;
        }
    }
}
