package dev.graphrt.examples.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The floor for the wgpu rows of {@link DecodeBench}: a plain {@code webgpu.h} program, with no GraphRT in it,
 * that runs the same dispatch list as a replay (K dependent dispatches of the bench's WGSL saxpy over the same
 * grid) in chunks of a given size, each chunk one command encoder, one compute pass, one pipeline and bind group
 * set, K dispatches and one submit, then one wait for the queue. It opens its own instance, adapter and device on
 * the same library, so the bench interleaves its rounds with GraphRT's in one process and one run.
 *
 * <p>It reports the host split per round: time spent encoding, time spent in finish + submit, and the total until
 * the queue is idle. Where the adapter offers {@code timestamp-query} it also measures the device's own time on
 * request ({@link Problem#run(int, int, boolean)}): each pass writes a timestamp at its start and end, giving the
 * device's busy time (sum of the passes) and span (first start to last end). Dawn quantizes these timestamps
 * (its {@code timestamp_quantization} toggle, on by default), so they are good to a few percent over a round of
 * many dispatches, not per dispatch. Struct layouts are those of the header generation of the Dawn build the
 * project uses (docs/webgpu.md), x86_64 Linux.
 */
@SuppressWarnings("restricted") // a plain FFM program: raw native addresses are its job
final class WebGpuFloor implements AutoCloseable {
    private static final long STRLEN = -1L;
    private static final int CALLBACK_MODE_WAIT_ANY_ONLY = 1;
    private static final int STYPE_SHADER_SOURCE_WGSL = 2;
    private static final int STATUS_SUCCESS = 1;
    private static final int BACKEND_VULKAN = 6;
    private static final int FEATURE_LEVEL_CORE = 2;
    private static final long USAGE_MAP_READ = 0x1;
    private static final long USAGE_COPY_SRC = 0x4;
    private static final long USAGE_COPY_DST = 0x8;
    private static final long USAGE_STORAGE = 0x80;
    private static final long USAGE_QUERY_RESOLVE = 0x200;
    private static final int FEATURE_TIMESTAMP_QUERY = 0x3;
    private static final int QUERY_TYPE_TIMESTAMP = 2;
    private static final int MAX_QUERIES = 4096;

    private static final StructLayout STRING_VIEW = MemoryLayout.structLayout(ADDRESS, JAVA_LONG);
    private static final StructLayout FUTURE = MemoryLayout.structLayout(JAVA_LONG);
    /** {@code WGPU*CallbackInfo}: nextInChain, mode, callback, userdata1, userdata2. */
    private static final StructLayout CALLBACK_INFO =
            MemoryLayout.structLayout(ADDRESS, JAVA_INT, MemoryLayout.paddingLayout(4), ADDRESS, ADDRESS, ADDRESS);

    private static final long WAIT_NS = 60_000_000_000L;

    private final Arena arena = Arena.ofShared();
    private final Fns fns;
    private final MemorySegment instance;
    private final MemorySegment device;
    private final MemorySegment queue;
    private final MemorySegment pipeline;
    private final MemorySegment layout;
    private final MemorySegment commandSlot = arena.allocate(ADDRESS);
    private final MemorySegment waitInfo = arena.allocate(24, 8);
    private final MemorySegment callbackInfo = arena.allocate(CALLBACK_INFO);
    private final SegmentAllocator futureSlot = SegmentAllocator.prefixAllocator(arena.allocate(FUTURE));
    private final MemorySegment requestStub;
    private final MemorySegment doneStub;
    private final MemorySegment errorStub;
    private volatile String firstError;
    private final MemorySegment querySet;
    private final MemorySegment resolved;
    private final MemorySegment readback;
    private final MemorySegment passDescriptor = arena.allocate(32, 8);
    private final MemorySegment timestampWrites = arena.allocate(24, 8);
    private volatile int lastStatus;
    private volatile MemorySegment lastObject = MemorySegment.NULL;

    /**
     * The measured shape of one round.
     *
     * @param gpuBusyNs the device's time inside the passes (timestamps), or -1 when not measured
     * @param gpuSpanNs the device's time from the first pass's start to the last one's end, or -1
     */
    record Timing(long encodeNs, long submitNs, long totalNs, long gpuBusyNs, long gpuSpanNs) {}

    private WebGpuFloor(Path library, String wgsl, String entryPoint) throws Throwable {
        fns = new Fns(SymbolLookup.libraryLookup(library, arena));
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        requestStub = Linker.nativeLinker()
                .upcallStub(
                        lookup.findVirtual(
                                        WebGpuFloor.class,
                                        "onRequest",
                                        MethodType.methodType(
                                                void.class,
                                                int.class,
                                                MemorySegment.class,
                                                MemorySegment.class,
                                                MemorySegment.class,
                                                MemorySegment.class))
                                .bindTo(this),
                        FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, STRING_VIEW, ADDRESS, ADDRESS),
                        arena);
        doneStub = Linker.nativeLinker()
                .upcallStub(
                        lookup.findVirtual(
                                        WebGpuFloor.class,
                                        "onDone",
                                        MethodType.methodType(
                                                void.class,
                                                int.class,
                                                MemorySegment.class,
                                                MemorySegment.class,
                                                MemorySegment.class))
                                .bindTo(this),
                        FunctionDescriptor.ofVoid(JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS),
                        arena);
        errorStub = Linker.nativeLinker()
                .upcallStub(
                        lookup.findVirtual(
                                        WebGpuFloor.class,
                                        "onError",
                                        MethodType.methodType(
                                                void.class,
                                                MemorySegment.class,
                                                int.class,
                                                MemorySegment.class,
                                                MemorySegment.class,
                                                MemorySegment.class))
                                .bindTo(this),
                        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, STRING_VIEW, ADDRESS, ADDRESS),
                        arena);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment desc = a.allocate(32, 8); // nextInChain, capabilities {next, timedWaitAnyEnable, maxCount}
            desc.set(JAVA_INT, 16, 1);
            desc.set(JAVA_LONG, 24, 1L);
            instance = (MemorySegment) fns.createInstance.invokeExact(desc);
            if (instance.address() == 0) {
                throw new IllegalStateException("wgpuCreateInstance returned nothing");
            }
            MemorySegment options = a.allocate(32, 8);
            options.set(JAVA_INT, 8, FEATURE_LEVEL_CORE);
            options.set(JAVA_INT, 20, BACKEND_VULKAN);
            MemorySegment f = (MemorySegment)
                    fns.requestAdapter.invokeExact(futureSlot, instance, options, callback(requestStub));
            MemorySegment adapter = awaitObject(f.get(JAVA_LONG, 0), "wgpuInstanceRequestAdapter");
            MemorySegment limits = a.allocate(512, 16);
            int got = (int) fns.adapterGetLimits.invokeExact(adapter, limits);
            boolean timestamps = (int) fns.adapterHasFeature.invokeExact(adapter, FEATURE_TIMESTAMP_QUERY) != 0;
            MemorySegment dd = a.allocate(256, 8); // WGPUDeviceDescriptor, zero but labels, features and limits
            dd.set(JAVA_LONG, 16, STRLEN); // label {NULL, STRLEN}
            if (timestamps) {
                dd.set(JAVA_LONG, 24, 1L); // requiredFeatureCount
                dd.set(ADDRESS, 32, a.allocateFrom(JAVA_INT, FEATURE_TIMESTAMP_QUERY));
            }
            dd.set(ADDRESS, 40, got == STATUS_SUCCESS ? limits : MemorySegment.NULL); // requiredLimits
            dd.set(JAVA_LONG, 64, STRLEN); // defaultQueue.label
            dd.set(ADDRESS, 120, errorStub); // uncapturedErrorCallbackInfo.callback: no error goes unseen
            f = (MemorySegment) fns.requestDevice.invokeExact(futureSlot, adapter, dd, callback(requestStub));
            device = awaitObject(f.get(JAVA_LONG, 0), "wgpuAdapterRequestDevice");
            queue = (MemorySegment) fns.deviceGetQueue.invokeExact(device);

            MemorySegment code = a.allocateFrom(wgsl, StandardCharsets.UTF_8);
            MemorySegment source = a.allocate(32, 8);
            source.set(JAVA_INT, 8, STYPE_SHADER_SOURCE_WGSL);
            source.set(ADDRESS, 16, code);
            source.set(JAVA_LONG, 24, STRLEN);
            MemorySegment sm = a.allocate(24, 8);
            sm.set(ADDRESS, 0, source);
            sm.set(JAVA_LONG, 16, STRLEN);
            MemorySegment module = (MemorySegment) fns.createShaderModule.invokeExact(device, sm);
            MemorySegment entry = a.allocateFrom(entryPoint, StandardCharsets.UTF_8);
            MemorySegment cp =
                    a.allocate(80, 8); // next, label, layout (NULL: auto), compute {next, module, entry, 0, NULL}
            cp.set(JAVA_LONG, 16, STRLEN);
            cp.set(ADDRESS, 40, module);
            cp.set(ADDRESS, 48, entry);
            cp.set(JAVA_LONG, 56, STRLEN);
            pipeline = (MemorySegment) fns.createComputePipeline.invokeExact(device, cp);
            layout = (MemorySegment) fns.pipelineGetBindGroupLayout.invokeExact(pipeline, 0);
            if (pipeline.address() == 0 || layout.address() == 0) {
                throw new IllegalStateException("the floor's pipeline was not created");
            }
            if (timestamps) {
                MemorySegment qd = a.allocate(32, 8); // next, label, type, count
                qd.set(JAVA_LONG, 16, STRLEN);
                qd.set(JAVA_INT, 24, QUERY_TYPE_TIMESTAMP);
                qd.set(JAVA_INT, 28, MAX_QUERIES);
                querySet = (MemorySegment) fns.createQuerySet.invokeExact(device, qd);
                resolved = buffer(MAX_QUERIES * 8L, USAGE_QUERY_RESOLVE | USAGE_COPY_SRC);
                readback = buffer(MAX_QUERIES * 8L, USAGE_MAP_READ | USAGE_COPY_DST);
            } else {
                querySet = MemorySegment.NULL;
                resolved = MemorySegment.NULL;
                readback = MemorySegment.NULL;
            }
        }
    }

    /** Whether the adapter offers timestamp queries, so {@link Problem#run(int, int, boolean)} can time the device. */
    boolean hasTimestamps() {
        return querySet.address() != 0;
    }

    /** Opens the floor on {@code library}, compiling {@code wgsl}'s {@code entryPoint} with an automatic layout. */
    static WebGpuFloor open(Path library, String wgsl, String entryPoint) {
        try {
            return new WebGpuFloor(library, wgsl, entryPoint);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("the webgpu floor could not start: " + t, t);
        }
    }

    /** One row's device state: x, y and info buffers and their bind group. */
    final class Problem implements AutoCloseable {
        private final int elements;
        private final int gridX;
        private final int gridY;
        private final MemorySegment x;
        private final MemorySegment y;
        private final MemorySegment info;
        private final MemorySegment group;
        private final float[] x0;
        private final float[] y0;
        private long kernels;

        Problem(float[] x0, float[] y0, int gridX, int gridY, float scale) throws Throwable {
            this.elements = x0.length;
            this.gridX = gridX;
            this.gridY = gridY;
            this.x0 = x0;
            this.y0 = y0;
            long bytes = elements * 4L;
            x = buffer(bytes, USAGE_STORAGE | USAGE_COPY_DST | USAGE_COPY_SRC);
            y = buffer(bytes, USAGE_STORAGE | USAGE_COPY_DST | USAGE_COPY_SRC);
            info = buffer(256, USAGE_STORAGE | USAGE_COPY_DST);
            try (Arena a = Arena.ofConfined()) {
                fns.writeBuffer.invokeExact(queue, x, 0L, a.allocateFrom(JAVA_FLOAT, x0), bytes);
                fns.writeBuffer.invokeExact(queue, y, 0L, a.allocateFrom(JAVA_FLOAT, y0), bytes);
                fns.writeBuffer.invokeExact(
                        queue, info, 0L, a.allocateFrom(JAVA_INT, elements, Float.floatToRawIntBits(scale)), 8L);
                MemorySegment entries = a.allocate(3 * 56L, 8); // next, binding, buffer, offset, size, sampler, view
                MemorySegment[] buffers = {x, y, info};
                long[] sizes = {bytes, bytes, 8};
                for (int i = 0; i < 3; i++) {
                    MemorySegment e = entries.asSlice(i * 56L, 56);
                    e.set(JAVA_INT, 8, i);
                    e.set(ADDRESS, 16, buffers[i]);
                    e.set(JAVA_LONG, 32, sizes[i]);
                }
                MemorySegment d = a.allocate(48, 8); // next, label, layout, entryCount, entries
                d.set(JAVA_LONG, 16, STRLEN);
                d.set(ADDRESS, 24, layout);
                d.set(JAVA_LONG, 32, 3L);
                d.set(ADDRESS, 40, entries);
                group = (MemorySegment) fns.createBindGroup.invokeExact(device, d);
            }
        }

        /** Runs {@code launches} dispatches in chunks of {@code chunk} and waits for the queue. */
        Timing run(int launches, int chunk) throws Throwable {
            return run(launches, chunk, false);
        }

        /**
         * Runs {@code launches} dispatches in chunks of {@code chunk} and waits for the queue; with
         * {@code deviceTime} (and an adapter that has timestamps) every pass also writes its start and end.
         */
        Timing run(int launches, int chunk, boolean deviceTime) throws Throwable {
            boolean stamped = deviceTime && hasTimestamps() && 2L * ((launches + chunk - 1) / chunk) <= MAX_QUERIES;
            long encode = 0;
            long submit = 0;
            int passes = 0;
            long t0 = System.nanoTime();
            for (int done = 0; done < launches; passes++) {
                long e0 = System.nanoTime();
                MemorySegment encoder =
                        (MemorySegment) fns.createCommandEncoder.invokeExact(device, MemorySegment.NULL);
                MemorySegment descriptor = stamped ? stampedPass(passes) : MemorySegment.NULL;
                MemorySegment pass = (MemorySegment) fns.beginComputePass.invokeExact(encoder, descriptor);
                fns.setPipeline.invokeExact(pass, pipeline);
                fns.setBindGroup.invokeExact(pass, 0, group, 0L, MemorySegment.NULL);
                int end = Math.min(launches, done + chunk);
                for (; done < end; done++) {
                    fns.dispatch.invokeExact(pass, gridX, gridY, 1);
                }
                fns.passEnd.invokeExact(pass);
                fns.passRelease.invokeExact(pass);
                long s0 = System.nanoTime();
                MemorySegment commands = (MemorySegment) fns.finish.invokeExact(encoder, MemorySegment.NULL);
                fns.encoderRelease.invokeExact(encoder);
                commandSlot.set(ADDRESS, 0, commands);
                fns.submit.invokeExact(queue, 1L, commandSlot);
                fns.commandBufferRelease.invokeExact(commands);
                long s1 = System.nanoTime();
                encode += s0 - e0;
                submit += s1 - s0;
            }
            MemorySegment f = (MemorySegment) fns.workDone.invokeExact(futureSlot, queue, callback(doneStub));
            awaitStatus(f.get(JAVA_LONG, 0), "wgpuQueueOnSubmittedWorkDone");
            long total = System.nanoTime() - t0;
            kernels += launches;
            if (!stamped) {
                return new Timing(encode, submit, total, -1, -1);
            }
            long[] stamps = readTimestamps(2 * passes);
            long busy = 0;
            for (int p = 0; p < passes; p++) {
                busy += stamps[2 * p + 1] - stamps[2 * p];
            }
            return new Timing(encode, submit, total, busy, stamps[2 * passes - 1] - stamps[0]);
        }

        /** Reads y back: every element must be {@code y0 + scale * kernels * x0}, bit for bit. */
        boolean verify(float scale) throws Throwable {
            long bytes = elements * 4L;
            MemorySegment staging = buffer(bytes, USAGE_MAP_READ | USAGE_COPY_DST);
            try {
                MemorySegment encoder =
                        (MemorySegment) fns.createCommandEncoder.invokeExact(device, MemorySegment.NULL);
                fns.copyBufferToBuffer.invokeExact(encoder, y, 0L, staging, 0L, bytes);
                MemorySegment commands = (MemorySegment) fns.finish.invokeExact(encoder, MemorySegment.NULL);
                fns.encoderRelease.invokeExact(encoder);
                commandSlot.set(ADDRESS, 0, commands);
                fns.submit.invokeExact(queue, 1L, commandSlot);
                fns.commandBufferRelease.invokeExact(commands);
                MemorySegment f = (MemorySegment)
                        fns.mapAsync.invokeExact(futureSlot, staging, 1L, 0L, bytes, callback(doneStub));
                awaitStatus(f.get(JAVA_LONG, 0), "wgpuBufferMapAsync");
                MemorySegment mapped =
                        ((MemorySegment) fns.getConstMappedRange.invokeExact(staging, 0L, bytes)).reinterpret(bytes);
                boolean exact = true;
                for (int i = 0; i < elements && exact; i++) {
                    exact = mapped.getAtIndex(JAVA_FLOAT, i) == y0[i] + scale * kernels * x0[i];
                }
                fns.unmap.invokeExact(staging);
                return exact;
            } finally {
                fns.bufferDestroy.invokeExact(staging);
                fns.bufferRelease.invokeExact(staging);
            }
        }

        @Override
        public void close() {
            try {
                fns.bindGroupRelease.invokeExact(group);
                for (MemorySegment b : new MemorySegment[] {x, y, info}) {
                    fns.bufferDestroy.invokeExact(b);
                    fns.bufferRelease.invokeExact(b);
                }
            } catch (Throwable t) {
                throw new IllegalStateException("releasing the floor's buffers failed", t);
            }
        }
    }

    /** A pass descriptor whose pass writes timestamps {@code 2 * index} (start) and {@code 2 * index + 1} (end). */
    private MemorySegment stampedPass(int index) {
        timestampWrites.set(ADDRESS, 8, querySet);
        timestampWrites.set(JAVA_INT, 16, 2 * index);
        timestampWrites.set(JAVA_INT, 20, 2 * index + 1);
        passDescriptor.set(JAVA_LONG, 16, STRLEN);
        passDescriptor.set(ADDRESS, 24, timestampWrites);
        return passDescriptor;
    }

    /** Resolves the first {@code count} timestamps (nanoseconds) and reads them back. */
    private long[] readTimestamps(int count) throws Throwable {
        long bytes = count * 8L;
        MemorySegment encoder = (MemorySegment) fns.createCommandEncoder.invokeExact(device, MemorySegment.NULL);
        fns.resolveQuerySet.invokeExact(encoder, querySet, 0, count, resolved, 0L);
        fns.copyBufferToBuffer.invokeExact(encoder, resolved, 0L, readback, 0L, bytes);
        MemorySegment commands = (MemorySegment) fns.finish.invokeExact(encoder, MemorySegment.NULL);
        fns.encoderRelease.invokeExact(encoder);
        commandSlot.set(ADDRESS, 0, commands);
        fns.submit.invokeExact(queue, 1L, commandSlot);
        fns.commandBufferRelease.invokeExact(commands);
        MemorySegment f =
                (MemorySegment) fns.mapAsync.invokeExact(futureSlot, readback, 1L, 0L, bytes, callback(doneStub));
        awaitStatus(f.get(JAVA_LONG, 0), "wgpuBufferMapAsync");
        MemorySegment mapped =
                ((MemorySegment) fns.getConstMappedRange.invokeExact(readback, 0L, bytes)).reinterpret(bytes);
        long[] stamps = mapped.toArray(JAVA_LONG);
        fns.unmap.invokeExact(readback);
        return stamps;
    }

    /** The device state for one row: {@code x0}, {@code y0} uploaded, info {@code [n, bits(a)]}. */
    Problem problem(float[] x0, float[] y0, int gridX, int gridY, float a) {
        try {
            return new Problem(x0, y0, gridX, gridY, a);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        try {
            if (hasTimestamps()) {
                fns.querySetRelease.invokeExact(querySet);
                for (MemorySegment b : new MemorySegment[] {resolved, readback}) {
                    fns.bufferDestroy.invokeExact(b);
                    fns.bufferRelease.invokeExact(b);
                }
            }
            fns.pipelineRelease.invokeExact(pipeline);
            fns.deviceDestroy.invokeExact(device);
            fns.deviceRelease.invokeExact(device);
            fns.instanceRelease.invokeExact(instance);
        } catch (Throwable t) {
            throw new IllegalStateException("releasing the floor failed", t);
        }
        // the arena (and the upcall stubs in it) stays: Dawn may still hold a callback of a released object
    }

    // ---- callbacks and waits ---------------------------------------------------------------------------------

    private MemorySegment callback(MemorySegment stub) {
        callbackInfo.fill((byte) 0);
        callbackInfo.set(JAVA_INT, 8, CALLBACK_MODE_WAIT_ANY_ONLY);
        callbackInfo.set(ADDRESS, 16, stub);
        lastStatus = 0;
        lastObject = MemorySegment.NULL;
        return callbackInfo;
    }

    // An upcall target, found by name (lookup.findVirtual above), with every parameter its C signature passes.
    @SuppressWarnings({"UnusedMethod", "UnusedVariable"})
    private void onRequest(
            int status, MemorySegment object, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        lastObject = object;
        lastStatus = status;
    }

    // An upcall target, found by name (lookup.findVirtual above), with every parameter its C signature passes.
    @SuppressWarnings({"UnusedMethod", "UnusedVariable"})
    private void onDone(int status, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        lastStatus = status;
    }

    // An upcall target, found by name (lookup.findVirtual above), with every parameter its C signature passes.
    @SuppressWarnings({"UnusedMethod", "UnusedVariable"})
    private void onError(MemorySegment device, int type, MemorySegment message, MemorySegment u1, MemorySegment u2) {
        if (firstError == null) {
            MemorySegment data = message.get(ADDRESS, 0);
            long length = message.get(JAVA_LONG, 8);
            String text = data.address() == 0
                    ? ""
                    : new String(
                            data.reinterpret(length == STRLEN ? 4096 : length).toArray(ValueLayout.JAVA_BYTE),
                            StandardCharsets.UTF_8);
            firstError = "webgpu error " + type + ": " + text.strip();
        }
    }

    private void awaitStatus(long future, String call) throws Throwable {
        waitInfo.fill((byte) 0);
        waitInfo.set(JAVA_LONG, 0, future);
        int waited = (int) fns.waitAny.invokeExact(instance, 1L, waitInfo, WAIT_NS);
        if (firstError != null) {
            throw new IllegalStateException("the floor program is wrong: " + firstError);
        }
        if (waited != STATUS_SUCCESS || lastStatus != STATUS_SUCCESS) {
            throw new IllegalStateException(
                    call + " failed: wait status " + waited + ", callback status " + lastStatus);
        }
    }

    private MemorySegment awaitObject(long future, String call) throws Throwable {
        awaitStatus(future, call);
        if (lastObject.address() == 0) {
            throw new IllegalStateException(call + " returned nothing");
        }
        return lastObject;
    }

    private MemorySegment buffer(long bytes, long usage) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment d = a.allocate(48, 8); // next, label, usage, size, mappedAtCreation
            d.set(JAVA_LONG, 16, STRLEN);
            d.set(JAVA_LONG, 24, usage);
            d.set(JAVA_LONG, 32, (bytes + 3) & ~3L);
            MemorySegment b = (MemorySegment) fns.createBuffer.invokeExact(device, d);
            if (b.address() == 0) {
                throw new IllegalStateException("wgpuDeviceCreateBuffer refused " + bytes + " bytes");
            }
            return b;
        }
    }

    /** The downcall handles, one per {@code webgpu.h} function the floor calls. */
    private static final class Fns {
        final MethodHandle createInstance;
        final MethodHandle requestAdapter;
        final MethodHandle adapterGetLimits;
        final MethodHandle adapterHasFeature;
        final MethodHandle createQuerySet;
        final MethodHandle resolveQuerySet;
        final MethodHandle querySetRelease;
        final MethodHandle requestDevice;
        final MethodHandle deviceGetQueue;
        final MethodHandle createShaderModule;
        final MethodHandle createComputePipeline;
        final MethodHandle pipelineGetBindGroupLayout;
        final MethodHandle createBuffer;
        final MethodHandle createBindGroup;
        final MethodHandle writeBuffer;
        final MethodHandle createCommandEncoder;
        final MethodHandle beginComputePass;
        final MethodHandle setPipeline;
        final MethodHandle setBindGroup;
        final MethodHandle dispatch;
        final MethodHandle passEnd;
        final MethodHandle passRelease;
        final MethodHandle finish;
        final MethodHandle encoderRelease;
        final MethodHandle submit;
        final MethodHandle commandBufferRelease;
        final MethodHandle copyBufferToBuffer;
        final MethodHandle workDone;
        final MethodHandle mapAsync;
        final MethodHandle getConstMappedRange;
        final MethodHandle unmap;
        final MethodHandle waitAny;
        final MethodHandle bufferDestroy;
        final MethodHandle bufferRelease;
        final MethodHandle bindGroupRelease;
        final MethodHandle pipelineRelease;
        final MethodHandle deviceDestroy;
        final MethodHandle deviceRelease;
        final MethodHandle instanceRelease;
        private final SymbolLookup lib;

        Fns(SymbolLookup lib) {
            this.lib = lib;
            createInstance = fn("wgpuCreateInstance", ADDRESS, ADDRESS);
            requestAdapter = fn("wgpuInstanceRequestAdapter", FUTURE, ADDRESS, ADDRESS, CALLBACK_INFO);
            adapterGetLimits = fn("wgpuAdapterGetLimits", JAVA_INT, ADDRESS, ADDRESS);
            adapterHasFeature = fn("wgpuAdapterHasFeature", JAVA_INT, ADDRESS, JAVA_INT);
            createQuerySet = fn("wgpuDeviceCreateQuerySet", ADDRESS, ADDRESS, ADDRESS);
            resolveQuerySet = fn(
                    "wgpuCommandEncoderResolveQuerySet",
                    null,
                    ADDRESS,
                    ADDRESS,
                    JAVA_INT,
                    JAVA_INT,
                    ADDRESS,
                    JAVA_LONG);
            querySetRelease = fn("wgpuQuerySetRelease", null, ADDRESS);
            requestDevice = fn("wgpuAdapterRequestDevice", FUTURE, ADDRESS, ADDRESS, CALLBACK_INFO);
            deviceGetQueue = fn("wgpuDeviceGetQueue", ADDRESS, ADDRESS);
            createShaderModule = fn("wgpuDeviceCreateShaderModule", ADDRESS, ADDRESS, ADDRESS);
            createComputePipeline = fn("wgpuDeviceCreateComputePipeline", ADDRESS, ADDRESS, ADDRESS);
            pipelineGetBindGroupLayout = fn("wgpuComputePipelineGetBindGroupLayout", ADDRESS, ADDRESS, JAVA_INT);
            createBuffer = fn("wgpuDeviceCreateBuffer", ADDRESS, ADDRESS, ADDRESS);
            createBindGroup = fn("wgpuDeviceCreateBindGroup", ADDRESS, ADDRESS, ADDRESS);
            writeBuffer = fn("wgpuQueueWriteBuffer", null, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG);
            createCommandEncoder = fn("wgpuDeviceCreateCommandEncoder", ADDRESS, ADDRESS, ADDRESS);
            beginComputePass = fn("wgpuCommandEncoderBeginComputePass", ADDRESS, ADDRESS, ADDRESS);
            setPipeline = fn("wgpuComputePassEncoderSetPipeline", null, ADDRESS, ADDRESS);
            setBindGroup =
                    fn("wgpuComputePassEncoderSetBindGroup", null, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS);
            dispatch = fn("wgpuComputePassEncoderDispatchWorkgroups", null, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT);
            passEnd = fn("wgpuComputePassEncoderEnd", null, ADDRESS);
            passRelease = fn("wgpuComputePassEncoderRelease", null, ADDRESS);
            finish = fn("wgpuCommandEncoderFinish", ADDRESS, ADDRESS, ADDRESS);
            encoderRelease = fn("wgpuCommandEncoderRelease", null, ADDRESS);
            submit = fn("wgpuQueueSubmit", null, ADDRESS, JAVA_LONG, ADDRESS);
            commandBufferRelease = fn("wgpuCommandBufferRelease", null, ADDRESS);
            copyBufferToBuffer = fn(
                    "wgpuCommandEncoderCopyBufferToBuffer",
                    null,
                    ADDRESS,
                    ADDRESS,
                    JAVA_LONG,
                    ADDRESS,
                    JAVA_LONG,
                    JAVA_LONG);
            workDone = fn("wgpuQueueOnSubmittedWorkDone", FUTURE, ADDRESS, CALLBACK_INFO);
            mapAsync = fn("wgpuBufferMapAsync", FUTURE, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, CALLBACK_INFO);
            getConstMappedRange = fn("wgpuBufferGetConstMappedRange", ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG);
            unmap = fn("wgpuBufferUnmap", null, ADDRESS);
            waitAny = fn("wgpuInstanceWaitAny", JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG);
            bufferDestroy = fn("wgpuBufferDestroy", null, ADDRESS);
            bufferRelease = fn("wgpuBufferRelease", null, ADDRESS);
            bindGroupRelease = fn("wgpuBindGroupRelease", null, ADDRESS);
            pipelineRelease = fn("wgpuComputePipelineRelease", null, ADDRESS);
            deviceDestroy = fn("wgpuDeviceDestroy", null, ADDRESS);
            deviceRelease = fn("wgpuDeviceRelease", null, ADDRESS);
            instanceRelease = fn("wgpuInstanceRelease", null, ADDRESS);
        }

        private MethodHandle fn(String name, MemoryLayout result, MemoryLayout... args) {
            MemorySegment symbol = lib.find(name).orElseThrow(() -> new IllegalStateException("missing " + name));
            FunctionDescriptor d =
                    result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
            return Linker.nativeLinker().downcallHandle(symbol, d);
        }
    }
}
