package dev.graphrt.backend.cpu;

import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * A launch with everything resolved: the kernel body, its buffer segments and info segment, the invocation
 * count. Eager launches build one per launch; a sealed graph builds them once and replays them as they are.
 */
final class PreparedLaunch implements JavaKernelArgs {
    /** Below this many invocations a kernel runs on the stream's worker thread alone. */
    private static final int PARALLEL_THRESHOLD = 1 << 15;

    private final String name;
    private final JavaKernel body;
    private final MemorySegment[] buffers;
    private final MemorySegment info;
    private final int infoCount;
    private final int invocations;

    PreparedLaunch(CpuCompiler.CpuKernel kernel, LaunchDims dims, Bindings bindings) {
        long total = dims.totalInvocations();
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("dims: the cpu backend runs at most 2^31-1 invocations per launch, was "
                    + total);
        }
        this.name = kernel.entryPoint();
        this.body = kernel.body();
        List<DeviceSlice> slices = bindings.buffers();
        this.buffers = new MemorySegment[slices.size()];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = CpuMemory.segmentOf(slices.get(i));
        }
        this.info = bindings.hasInfo() ? CpuMemory.segmentOf(bindings.info()) : MemorySegment.NULL;
        this.infoCount = bindings.infoWords();
        this.invocations = (int) total;
    }

    void run(ForkJoinPool pool) {
        if (invocations <= PARALLEL_THRESHOLD) {
            body.run(this, 0, invocations);
        } else {
            pool.invoke(new Range(0, invocations));
        }
    }

    private final class Range extends RecursiveAction {
        private final int from;
        private final int to;

        Range(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        protected void compute() {
            if (to - from <= PARALLEL_THRESHOLD) {
                body.run(PreparedLaunch.this, from, to);
                return;
            }
            int mid = (from + to) >>> 1;
            invokeAll(new Range(from, mid), new Range(mid, to));
        }
    }

    String name() {
        return name;
    }

    @Override
    public MemorySegment buffer(int index) {
        return buffers[index];
    }

    @Override
    public int bufferCount() {
        return buffers.length;
    }

    @Override
    public int info(int index) {
        if (index < 0 || index >= infoCount) {
            throw new IndexOutOfBoundsException("info word " + index + " of " + infoCount + " in kernel " + name);
        }
        return info.getAtIndex(ValueLayout.JAVA_INT, index);
    }

    @Override
    public int infoCount() {
        return infoCount;
    }
}
