package dev.graphrt.backend.template;

import dev.graphrt.api.DriverException;
import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.Fence;
import dev.graphrt.spi.RecordedLaunch;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A synchronous stream: each operation runs inside the call that enqueues it, on the caller's thread, so the
 * stream's order is the order of the calls, and every fence is already passed when it is recorded.
 *
 * <p>What it must still do as a device would: a kernel that fails does not fail its launch or replay. Its error is
 * kept and thrown by the next {@link #synchronize} or {@link #read}, or handed to the core by {@link #drainErrors};
 * the core then names the replays it blames.
 *
 * <p>Its graphs are software graphs: the stream is its own {@link SoftwareGraphs} ({@link #capture()}) and overrides
 * none of its hooks. The core records the launches, and the {@link RecordedLaunches} it seals (the SPI's default
 * {@code seal}) is the graph that {@link #replay} runs. Not thread-safe: the core serialises the calls of one stream.
 */
final class TemplateStream implements BackendStream, SoftwareGraphs {

    /** The one fence: the work before it finished when it was recorded. */
    private enum Done implements Fence {
        DONE
    }

    private final List<Throwable> errors = new ArrayList<>();

    /** Software graphs, the same for every call: the core records, the SPI's defaults seal. */
    @Override
    public CaptureSupport capture() {
        return this;
    }

    @Override
    public void launch(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        try {
            run(kernel, dims, bindings);
        } catch (RuntimeException failure) {
            errors.add(failure);
        }
    }

    /** A replay runs the launches the core recorded, in order; a failing one ends the replay. */
    @Override
    public void replay(BackendGraph graph) {
        try {
            for (RecordedLaunch launch : ((RecordedLaunches) graph).launches()) {
                run(launch.kernel(), launch.dims(), launch.bindings());
            }
        } catch (RuntimeException failure) {
            errors.add(failure);
        }
    }

    private static void run(CompiledKernel kernel, LaunchDims dims, Bindings bindings) {
        long invocations = dims.totalInvocations();
        if (invocations > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "dims: the template backend runs at most 2^31-1 invocations per launch, " + "was " + invocations);
        }
        ((TemplateCompiler.Kernel) kernel).body().run(new Args(bindings), 0, (int) invocations);
    }

    /** What a Java kernel sees of a launch: its buffers' memory and its info words. */
    private record Args(Bindings bindings) implements JavaKernelArgs {
        @Override
        public MemorySegment buffer(int index) {
            return TemplateMemory.segment(bindings.buffers().get(index));
        }

        @Override
        public int bufferCount() {
            return bindings.buffers().size();
        }

        @Override
        public int info(int index) {
            if (index < 0 || index >= bindings.infoWords()) {
                throw new IndexOutOfBoundsException("info word " + index + " of " + bindings.infoWords());
            }
            return TemplateMemory.segment(bindings.info()).getAtIndex(ValueLayout.JAVA_INT, index);
        }

        @Override
        public int infoCount() {
            return bindings.infoWords();
        }
    }

    /** Copies at once: {@code src} is valid only during the call. */
    @Override
    public void write(DeviceSlice dst, MemorySegment src) {
        MemorySegment.copy(src, 0, TemplateMemory.segment(dst), 0, src.byteSize());
    }

    @Override
    public void read(DeviceSlice src, MemorySegment dst) {
        MemorySegment.copy(TemplateMemory.segment(src), 0, dst, 0, dst.byteSize());
        throwFirstError();
    }

    @Override
    public Fence recordFence() {
        return Done.DONE;
    }

    @Override
    public boolean isComplete(Fence fence) {
        return true;
    }

    @Override
    public void await(Fence fence) {}

    @Override
    public void synchronize() {
        throwFirstError();
    }

    @Override
    public List<Throwable> drainErrors() {
        List<Throwable> failed = List.copyOf(errors);
        errors.clear();
        return failed;
    }

    /** The first kept error as the primary, the later ones suppressed onto it. */
    private void throwFirstError() {
        List<Throwable> failed = drainErrors();
        if (!failed.isEmpty()) {
            DriverException failure = new DriverException("template kernel", failed.getFirst());
            failed.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /** Nothing to release: no work is ever left queued. */
    @Override
    public void close() {}
}
