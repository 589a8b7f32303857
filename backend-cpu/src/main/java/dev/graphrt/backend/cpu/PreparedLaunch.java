package dev.graphrt.backend.cpu;

import dev.graphrt.api.JavaKernel;
import dev.graphrt.api.JavaKernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.DeviceSlice;
import dev.graphrt.spi.OutOfBoundsAccess;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A launch with everything resolved: the kernel body, its buffer segments and info segment, the invocation
 * count. Eager launches build one per launch; a sealed graph builds them once and replays them as they are.
 */
final class PreparedLaunch implements JavaKernelArgs {
    /** Below this many invocations a kernel runs on the stream's worker thread alone. */
    private static final int PARALLEL_THRESHOLD = 1 << 15;
    /** How the JDK words a segment's bounds failure: the segment's address and size, then the offset touched. */
    private static final Pattern SEGMENT_BOUNDS =
            Pattern.compile("address: 0x([0-9a-fA-F]+), byteSize: (\\d+) \\}; new offset = (-?\\d+)");

    private final String name;
    private final JavaKernel body;
    private final MemorySegment[] buffers;
    private final MemorySegment info;
    private final int infoCount;
    private final int invocations;
    private final List<DeviceSlice> slices;

    PreparedLaunch(CpuCompiler.CpuKernel kernel, LaunchDims dims, Bindings bindings) {
        long total = dims.totalInvocations();
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "dims: the cpu backend runs at most 2^31-1 invocations per launch, was " + total);
        }
        this.name = kernel.entryPoint();
        this.body = kernel.body();
        this.slices = bindings.buffers();
        this.buffers = new MemorySegment[slices.size()];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = CpuMemory.segmentOf(slices.get(i));
        }
        this.info = bindings.hasInfo() ? CpuMemory.segmentOf(bindings.info()) : MemorySegment.NULL;
        this.infoCount = bindings.infoWords();
        this.invocations = (int) total;
    }

    /**
     * Runs every invocation. An access outside a buffer's segment (the JDK's bounds check stopped it) is reported as
     * {@link OutOfBoundsAccess} naming the argument and the offset, so the core can name the user's buffer.
     */
    void run(ForkJoinPool pool) {
        try {
            if (invocations <= PARALLEL_THRESHOLD) {
                body.run(this, 0, invocations);
            } else {
                pool.invoke(new Range(0, invocations));
            }
        } catch (IndexOutOfBoundsException outside) {
            OutOfBoundsAccess access = outOfBounds(outside);
            if (access == null) {
                throw outside;
            }
            throw access;
        }
    }

    /**
     * The buffer argument a segment bounds failure names (by the segment's address and size), or null. A failure in
     * another worker of the pool arrives as a copy whose cause is the original, so the causes are read too.
     */
    private OutOfBoundsAccess outOfBounds(IndexOutOfBoundsException outside) {
        Matcher m = null;
        for (Throwable t = outside; t != null && m == null; t = t.getCause()) {
            Matcher candidate = SEGMENT_BOUNDS.matcher(String.valueOf(t.getMessage()));
            m = candidate.find() ? candidate : null;
        }
        if (m == null) {
            return null;
        }
        long address = Long.parseUnsignedLong(m.group(1), 16);
        long size = Long.parseLong(m.group(2));
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i].address() == address && buffers[i].byteSize() == size) {
                return new OutOfBoundsAccess(slices.get(i), Long.parseLong(m.group(3)), name, i, outside);
            }
        }
        return null;
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
