package dev.graphrt.core.runtime;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.BufferOverrunException;
import dev.graphrt.api.DeviceInfo;
import dev.graphrt.api.Graph;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.LaunchLimits;
import dev.graphrt.core.events.ReplayEvent;
import dev.graphrt.core.lifecycle.CaptureLifecycle;
import dev.graphrt.core.lifecycle.OperationPolicy;
import dev.graphrt.core.memory.PoolSlice;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.RecordedLaunch;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A stream's work: allocate, write, read, launch, replay, flush and synchronize. Each checks its input, asks
 * {@link OperationPolicy} what the current state allows, holds what it uses (before the backend sees the storage),
 * and hands the backend exactly what it must do; while the stream takes part in another stream's capture its work
 * is recorded by that origin's lifecycle.
 */
final class StreamWork {
    private final ReplayClock replayClock = new ReplayClock();
    /** The info words of the launch being enqueued, reused (under the stream's lock) from launch to launch. */
    private int[] infoWords = new int[16];
    /** The last launch's arguments and the bindings made for them ({@link #bindings}); one field, one write. */
    private @Nullable LastLaunch last;

    private record LastLaunch(KernelArgs args, Bindings bindings) {}
    /** The device's launch limits and its label, read once: every launch is checked against them. */
    private final LaunchLimits limits;

    private final String deviceLabel;
    private final StreamContext c;

    StreamWork(StreamContext c) {
        this.c = c;
        DeviceInfo device = c.host().backend().device();
        this.limits = device.limits();
        this.deviceLabel = device.backend() + ": " + device.name();
    }

    // ---- memory ------------------------------------------------------------------------------------

    Buffer allocate(long bytes) {
        c.host().checkOpen("allocate");
        c.host().checkAllocationSize(bytes, "bytes");
        return c.guard().call("allocate", null, () -> {
            boolean own = !c.membership().isMember();
            CoreBuffer view = own
                    ? c.window()
                            .borrow(bytes, c.lifecycle().current(), c.checked().on())
                    : null;
            if (view != null) {
                return view;
            }
            PoolSlice slice = allocateSlice(bytes + c.checked().extraBytes());
            CoreBuffer buffer;
            try {
                buffer = c.checked().buffer(c.host().scope(), c.host().nextBufferId(), slice, bytes);
            } catch (RuntimeException failure) {
                c.host().memory().release(slice);
                throw failure;
            }
            if (own) {
                c.window().allocated(buffer, c.lifecycle().current());
            }
            return buffer;
        });
    }

    /**
     * A slice from the memory that serves this stream now: the origin's window while joined to its capture, the
     * origin's window while taking part in its warm-up, else this stream's own.
     */
    private PoolSlice allocateSlice(long bytes) {
        StreamPeer origin = c.membership().lockOrigin();
        try {
            if (origin != null) {
                return origin.memory().allocate(bytes);
            }
        } finally {
            c.membership().unlockOrigin(origin);
        }
        StreamPeer warmup = c.membership().warmupOrigin();
        if (warmup != null) {
            warmup.lock().lock(); // this stream's lock, then the origin's: the fork/join order
            try {
                if (c.membership().warmupOrigin() == warmup
                        && c.policy()
                                .primesInWarmup(
                                        c.lifecycle().current(),
                                        warmup.lifecycle().current())) {
                    return warmup.memory().allocate(bytes); // primed in the warm-up's window
                }
            } finally {
                warmup.lock().unlock();
            }
        }
        return c.memory().allocate(bytes);
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
        c.host().checkOpen("write");
        Objects.requireNonNull(data, "data");
        HostSegments.checkReadable(data, "data");
        CoreBuffer buffer = c.host().checkBuffer(dst, "dst");
        if (data.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException(
                    "data has " + data.byteSize() + " bytes but dst " + buffer + " holds only " + buffer.byteSize());
        }
        if (data.byteSize() == 0) {
            return;
        }
        c.guard().runJoined("write", null, origin -> {
            DeviceSlice target = buffer.storage().prefix(data.byteSize());
            if (origin != null) {
                c.membership().rejectOnOrigin(origin, "write of " + data.byteSize() + " bytes into " + buffer);
                return;
            }
            switch (c.policy().write(c.lifecycle().current())) {
                case RUN -> {
                    c.memory().beforeStagedWrite(data.byteSize());
                    c.memory().hold(buffer, "dst");
                    c.memory().stagedWrite(target, data);
                }
                case RECORD -> {
                    c.memory().hold(buffer, "dst");
                    c.memory().stagedWrite(target, data);
                    c.lifecycle().noteRecordedWrite();
                }
                case DEFER_REJECTION ->
                    c.lifecycle()
                            .rejectLazily("write of " + data.byteSize() + " bytes into "
                                    + buffer + " (the " + c.policy().backend()
                                    + " backend lacks RECORDS_WRITES: write before "
                                    + "prepare() or between replays)");
            }
        });
    }

    void read(Buffer src, MemorySegment dst) {
        c.host().checkOpen("read");
        Objects.requireNonNull(dst, "dst");
        HostSegments.checkWritable(dst, "dst");
        CoreBuffer buffer = c.host().checkBuffer(src, "src");
        if (dst.byteSize() > buffer.byteSize()) {
            throw new IllegalArgumentException(
                    "dst has " + dst.byteSize() + " bytes but src " + buffer + " holds only " + buffer.byteSize());
        }
        c.guard().run("read", null, () -> {
            checkHostSync("read");
            c.memory().hold(buffer, "src");
            c.blame().hostSync(() -> {
                c.memory().awaitAll("the work before a read of " + buffer);
                if (dst.byteSize() > 0) {
                    c.backend().read(buffer.storage().prefix(dst.byteSize()), dst);
                }
            });
            Optional<BufferOverrunException> overrun = c.checked().check(c.backend());
            c.memory().afterSync();
            overrun.ifPresent(failure -> {
                throw failure;
            });
        });
    }

    /** The two host-sync rules, asked together: not while this stream records, nor beside a capture forbidding it. */
    void checkHostSync(String operation) {
        c.policy().checkHostSync(c.membership().state(), operation, c.id());
        c.checkHostSyncBesideCapture(operation);
    }

    // ---- work --------------------------------------------------------------------------------------

    void launch(Kernel kernel, LaunchDims dims, KernelArgs args) {
        c.host().checkOpen("launch");
        CoreKernel compiled = c.host().checkKernel(kernel);
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(args, "args");
        List<Buffer> buffers = args.buffers();
        int count = buffers.size();
        for (int i = 0; i < count; i++) {
            c.host().checkBuffer(buffers.get(i), LaunchArguments.bufferArgument(i));
        }
        LaunchArguments.check(compiled.compiled(), args); // before the info lookup, any hold or any enqueueing
        LaunchArguments.checkDims(compiled.compiled(), dims, limits, deviceLabel);
        // the guard's skeleton written out, not a lambda: a launch allocates nothing (a capturing body would be an
        // object per launch, which the JIT does not always remove)
        StreamGuard guard = c.guard();
        @Nullable StreamPeer origin = guard.enterJoined("launch", compiled);
        try {
            launchLocked(compiled, dims, args, buffers, count);
        } catch (RuntimeException raised) {
            throw guard.failed("launch", compiled, raised);
        } finally {
            guard.exitJoined(origin);
        }
    }

    /** The launch under the stream's lock (and its origin's), checked: holds, bindings, the policy's action. */
    private void launchLocked(CoreKernel compiled, LaunchDims dims, KernelArgs args, List<Buffer> buffers, int count) {
        StreamMemory target = c.membership().recordingMemory();
        CaptureLifecycle recording = c.membership().recording();
        // The info lookup may allocate, and an allocation is a flush point that fences the epoch: the holds
        // are taken after it, so no fence can fall between them and the launch they protect.
        int words = args.infoWordCount();
        if (infoWords.length < words) {
            infoWords = new int[Math.max(words, 2 * infoWords.length)];
        }
        args.copyInfoWords(infoWords); // into this stream's own array: a launch allocates no copy
        DeviceSlice info = target.info(infoWords, words);
        for (int i = 0; i < count; i++) {
            target.hold(used(buffers, i), LaunchArguments.bufferArgument(i));
        }
        if (c.checked().on()) {
            c.checked().launched(compiled.compiled().entryPoint() + " " + dims, buffers.toArray(CoreBuffer[]::new));
        }
        Bindings bindings = bindings(args, buffers, info, words);
        switch (c.policy().launch(recording.current())) {
            case RUN -> c.backend().launch(compiled.compiled(), dims, bindings);
            case RECORD_IN_DRIVER -> {
                c.backend().launch(compiled.compiled(), dims, bindings);
                recording.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
            }
            case RECORD_IN_CORE -> recording.recordLaunch(new RecordedLaunch(compiled.compiled(), dims, bindings));
        }
        c.membership().countOperation();
    }

    /**
     * The launch's bindings: the last launch's again when it passed the same {@code KernelArgs} (immutable), got the
     * same info slice and its buffers still have the slices they had, else new ones, kept for the next launch. A
     * decode loop that launches with arguments it built once then allocates nothing per launch here; bindings are
     * immutable, so a backend or a recording that keeps the shared object sees the same values. Under the stream's
     * lock.
     */
    private Bindings bindings(KernelArgs args, List<Buffer> buffers, @Nullable DeviceSlice info, int words) {
        LastLaunch previous = last;
        if (previous != null
                && args == previous.args()
                && previous.bindings().info() == info
                && previous.bindings().infoWords() == words) {
            List<DeviceSlice> slices = previous.bindings().buffers();
            boolean same = slices.size() == buffers.size();
            for (int i = 0; same && i < slices.size(); i++) {
                same = slices.get(i) == used(buffers, i).storage();
            }
            if (same) {
                return previous.bindings();
            }
        }
        Bindings fresh = new Bindings(slices(buffers), info, words);
        last = new LastLaunch(args, fresh);
        return fresh;
    }

    /** Forgets the last launch's arguments (the stream closes): its buffers are not kept reachable from here. */
    void forgetLastLaunch() {
        last = null;
    }

    /** Launch argument {@code i}, checked before the launch took the lock: this runtime's, open then. */
    private static CoreBuffer used(List<Buffer> buffers, int i) {
        return (CoreBuffer) buffers.get(i);
    }

    /** The launch's slices as an immutable list; one or two (most launches) without an array. */
    private static List<DeviceSlice> slices(List<Buffer> buffers) {
        return switch (buffers.size()) {
            case 0 -> List.of();
            case 1 -> List.of(used(buffers, 0).storage());
            case 2 -> List.of(used(buffers, 0).storage(), used(buffers, 1).storage());
            default -> {
                DeviceSlice[] all = new DeviceSlice[buffers.size()];
                for (int i = 0; i < all.length; i++) {
                    all[i] = used(buffers, i).storage();
                }
                yield List.of(all);
            }
        };
    }

    /**
     * Replays a graph this stream sealed. Inside a recording the policy decides: the replay becomes part of the
     * new graph (which then holds the child and its buffers), or is rejected lazily.
     */
    void replay(Graph graph) {
        c.host().checkOpen("replay");
        CoreGraph target = c.host().checkGraph(graph, "graph");
        if (target.owner() != c.self()) {
            throw new IllegalArgumentException("graph: " + target + " was captured on stream #"
                    + target.owner().id() + "; replay it there, not on stream #" + c.id());
        }
        c.guard().runJoined("replay", target, origin -> {
            if (target.isClosed()) {
                throw new IllegalStateException("graph: " + target + " is closed and cannot be replayed");
            }
            if (origin != null) {
                c.membership().rejectOnOrigin(origin, "replay of " + target);
                return;
            }
            c.window().checkReplay(target, c.lifecycle().current());
            switch (c.policy().replay(c.lifecycle().current())) {
                case RUN -> {
                    replayNow(target);
                    c.checked().replayed(target);
                }
                case RECORD_IN_DRIVER -> {
                    c.memory().holdChild(target);
                    c.backend().replay(target.backendGraph());
                    c.lifecycle().recordChild(target.window());
                }
                case RECORD_IN_CORE -> {
                    c.memory().holdChild(target);
                    c.lifecycle().recordChild(target.window());
                }
                case DEFER_REJECTION ->
                    c.lifecycle()
                            .rejectLazily("replay of " + target + " (the "
                                    + c.policy().backend()
                                    + " backend lacks NESTED_GRAPHS: replay it before prepare() or after "
                                    + "endCapture())");
            }
            if (c.policy().countsAsRecorded(c.lifecycle().current())) {
                c.membership().countOperation();
            }
        });
    }

    private void replayNow(CoreGraph target) {
        ReplayEvent event = new ReplayEvent();
        event.begin();
        c.backend().replay(target.backendGraph());
        target.countReplay();
        c.blame().replayed(target.id());
        Observers observers = c.host().observers();
        if (observers.active()) {
            observers.replayed(c.id(), target.id());
            replayClock.enqueued(target.id());
        }
        if (event.shouldCommit()) {
            event.graph = target.id();
            event.commit();
        }
    }

    void flush() {
        c.guard().run("flush", null, flushBody);
    }

    /** The body of {@link #flush}, made once: a flush allocates nothing. */
    private final Runnable flushBody = this::flushLocked;

    private void flushLocked() {
        c.policy().checkHostSync(c.membership().state(), "flush", c.id());
        c.backend().flush();
        c.memory().flushPoint();
    }

    void synchronize() {
        try {
            c.guard().run("synchronize", null, () -> {
                checkHostSync("synchronize");
                c.memory().flushPoint();
                c.blame().hostSync(() -> {
                    c.memory().awaitAll("synchronize");
                    c.backend().synchronize();
                });
                Optional<BufferOverrunException> overrun = c.checked().check(c.backend());
                c.memory().afterSync();
                overrun.ifPresent(failure -> {
                    throw failure;
                });
                c.memory().takeFailures().ifPresent(failure -> {
                    throw failure;
                });
                replayClock.completed(c.id(), c.host().observers());
            });
        } catch (RuntimeException failure) {
            replayClock.clear();
            throw failure;
        }
    }
}
