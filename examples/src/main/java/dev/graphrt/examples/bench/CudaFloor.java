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
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The floor for the cuda rows of {@link LaunchFloorBench}: a plain CUDA driver program through FFM, with no GraphRT
 * in it, that runs the bench's chain of K dependent saxpy launches eagerly ({@code cuLaunchKernel} K times, then
 * {@code cuStreamSynchronize}) and as one captured graph ({@code cuGraphLaunch}, then the same wait). It compiles the
 * bench's CUDA C with NVRTC itself, shares the device's primary context with GraphRT (it retains it too), and runs in
 * GraphRT's JVM, so the bench interleaves the floor's rounds with GraphRT's: one process, one JIT, one device state.
 */
@SuppressWarnings("restricted") // a plain FFM program: raw native addresses are its job
final class CudaFloor implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int STREAM_NON_BLOCKING = 1;
    private static final int CAPTURE_MODE_THREAD_LOCAL = 1;
    private static final int ATTRIBUTE_CC_MAJOR = 75;
    private static final int ATTRIBUTE_CC_MINOR = 76;
    private static final int EVENT_DISABLE_TIMING = 2;
    private static final int NOT_READY = 600;

    private final Arena arena = Arena.ofShared();
    private final MethodHandle launchKernel;
    private final MethodHandle streamSynchronize;
    private final MethodHandle graphLaunch;
    private final MethodHandle beginCapture;
    private final MethodHandle endCapture;
    private final MethodHandle instantiate;
    private final MethodHandle graphExecDestroy;
    private final MethodHandle graphDestroy;
    private final MethodHandle memAlloc;
    private final MethodHandle memFree;
    private final MethodHandle copyHtoD;
    private final MethodHandle copyDtoH;
    private final MethodHandle moduleUnload;
    private final MethodHandle streamDestroy;
    private final MethodHandle primaryRelease;
    private final MethodHandle contextSynchronize;
    private final MethodHandle graphUpload;
    private final MethodHandle eventRecord;
    private final MethodHandle eventQuery;
    private final MemorySegment event;
    private final MethodHandle eventDestroy;
    private final MethodHandle execUpdate;
    private final MethodHandle graphGetNodes;
    private final MethodHandle execKernelNodeSetParams;
    private final int device;
    private final MemorySegment stream;
    private final MemorySegment module;
    private final MemorySegment function;

    /** Opens device 0's primary context, a non-blocking stream and the saxpy kernel compiled from {@code cudaC}. */
    CudaFloor(String cudaC, String entryPoint) throws Throwable {
        SymbolLookup cuda = SymbolLookup.libraryLookup("libcuda.so.1", arena);
        MethodHandle init = bind(cuda, "cuInit", JAVA_INT);
        MethodHandle deviceGet = bind(cuda, "cuDeviceGet", ADDRESS, JAVA_INT);
        MethodHandle attribute = bind(cuda, "cuDeviceGetAttribute", ADDRESS, JAVA_INT, JAVA_INT);
        MethodHandle primaryRetain = bind(cuda, "cuDevicePrimaryCtxRetain", ADDRESS, JAVA_INT);
        MethodHandle setCurrent = bind(cuda, "cuCtxSetCurrent", ADDRESS);
        MethodHandle streamCreate = bind(cuda, "cuStreamCreate", ADDRESS, JAVA_INT);
        MethodHandle moduleLoad = bind(cuda, "cuModuleLoadData", ADDRESS, ADDRESS);
        MethodHandle getFunction = bind(cuda, "cuModuleGetFunction", ADDRESS, ADDRESS, ADDRESS);
        launchKernel = bind(
                cuda,
                "cuLaunchKernel",
                ADDRESS,
                JAVA_INT,
                JAVA_INT,
                JAVA_INT,
                JAVA_INT,
                JAVA_INT,
                JAVA_INT,
                JAVA_INT,
                ADDRESS,
                ADDRESS,
                ADDRESS);
        streamSynchronize = bind(cuda, "cuStreamSynchronize", ADDRESS);
        graphLaunch = bind(cuda, "cuGraphLaunch", ADDRESS, ADDRESS);
        beginCapture = bind(cuda, "cuStreamBeginCapture_v2", ADDRESS, JAVA_INT);
        endCapture = bind(cuda, "cuStreamEndCapture", ADDRESS, ADDRESS);
        instantiate = bind(cuda, "cuGraphInstantiateWithFlags", ADDRESS, ADDRESS, JAVA_LONG);
        graphExecDestroy = bind(cuda, "cuGraphExecDestroy", ADDRESS);
        graphDestroy = bind(cuda, "cuGraphDestroy", ADDRESS);
        memAlloc = bind(cuda, "cuMemAlloc_v2", ADDRESS, JAVA_LONG);
        memFree = bind(cuda, "cuMemFree_v2", JAVA_LONG);
        copyHtoD = bind(cuda, "cuMemcpyHtoD_v2", JAVA_LONG, ADDRESS, JAVA_LONG);
        copyDtoH = bind(cuda, "cuMemcpyDtoH_v2", ADDRESS, JAVA_LONG, JAVA_LONG);
        moduleUnload = bind(cuda, "cuModuleUnload", ADDRESS);
        streamDestroy = bind(cuda, "cuStreamDestroy_v2", ADDRESS);
        primaryRelease = bind(cuda, "cuDevicePrimaryCtxRelease_v2", JAVA_INT);
        contextSynchronize = bind(cuda, "cuCtxSynchronize");
        graphUpload = bind(cuda, "cuGraphUpload", ADDRESS, ADDRESS);
        eventRecord = bind(cuda, "cuEventRecord", ADDRESS, ADDRESS);
        eventQuery = bind(cuda, "cuEventQuery", ADDRESS);
        MethodHandle eventCreate = bind(cuda, "cuEventCreate", ADDRESS, JAVA_INT);
        eventDestroy = bind(cuda, "cuEventDestroy_v2", ADDRESS);
        execUpdate = bind(cuda, "cuGraphExecUpdate_v2", ADDRESS, ADDRESS, ADDRESS);
        graphGetNodes = bind(cuda, "cuGraphGetNodes", ADDRESS, ADDRESS, ADDRESS);
        execKernelNodeSetParams = bind(cuda, "cuGraphExecKernelNodeSetParams_v2", ADDRESS, ADDRESS, ADDRESS);

        check("cuInit", (int) init.invokeExact(0));
        MemorySegment out = arena.allocate(JAVA_LONG);
        check("cuDeviceGet", (int) deviceGet.invokeExact(out, 0));
        device = out.get(JAVA_INT, 0);
        check("cuDeviceGetAttribute", (int) attribute.invokeExact(out, ATTRIBUTE_CC_MAJOR, device));
        int major = out.get(JAVA_INT, 0);
        check("cuDeviceGetAttribute", (int) attribute.invokeExact(out, ATTRIBUTE_CC_MINOR, device));
        int minor = out.get(JAVA_INT, 0);
        check("cuDevicePrimaryCtxRetain", (int) primaryRetain.invokeExact(out, device));
        MemorySegment context = out.get(ADDRESS, 0);
        check("cuCtxSetCurrent", (int) setCurrent.invokeExact(context));
        check("cuStreamCreate", (int) streamCreate.invokeExact(out, STREAM_NON_BLOCKING));
        stream = out.get(ADDRESS, 0);
        byte[] ptx = ptx(cudaC, entryPoint, "--gpu-architecture=compute_" + major + minor);
        MemorySegment image = arena.allocate(ptx.length + 1L);
        image.copyFrom(MemorySegment.ofArray(ptx));
        check("cuModuleLoadData", (int) moduleLoad.invokeExact(out, image));
        module = out.get(ADDRESS, 0);
        check("cuModuleGetFunction", (int) getFunction.invokeExact(out, module, arena.allocateFrom(entryPoint)));
        function = out.get(ADDRESS, 0);
        check("cuEventCreate", (int) eventCreate.invokeExact(out, EVENT_DISABLE_TIMING));
        event = out.get(ADDRESS, 0);
    }

    private static MethodHandle bind(SymbolLookup library, String name, MemoryLayout... arguments) {
        return LINKER.downcallHandle(
                library.find(name).orElseThrow(() -> new IllegalStateException("libcuda has no " + name)),
                FunctionDescriptor.of(JAVA_INT, arguments));
    }

    private static void check(String call, int result) {
        if (result != 0) {
            throw new IllegalStateException("the cuda floor's " + call + " returned " + result);
        }
    }

    /** The bench's saxpy chain on the floor: device buffers x and y, and the info words {n, float bits of a}. */
    final class Problem implements AutoCloseable {
        private final int n;
        private final int grid;
        private final long x;
        private final long y;
        private final long info;
        private final MemorySegment params;
        private MemorySegment exec = MemorySegment.NULL;
        private MemorySegment graph = MemorySegment.NULL;
        private long launchNanos;

        Problem(float[] xs, float[] ys, float a) throws Throwable {
            n = xs.length;
            grid = (n + 255) / 256;
            x = allocate(n * 4L);
            y = allocate(n * 4L);
            info = allocate(8);
            upload(x, MemorySegment.ofArray(xs));
            upload(y, MemorySegment.ofArray(ys));
            upload(info, MemorySegment.ofArray(new int[] {n, Float.floatToRawIntBits(a)}));
            // A synchronous copy from pageable memory may return before its DMA landed, and the floor's stream is
            // non-blocking: wait for the context before any kernel reads the inputs.
            check("cuCtxSynchronize", (int) contextSynchronize.invokeExact());
            params = kernelParams(x, y, info);
        }

        /** {@code k} launches, then a wait for the stream: nanoseconds in all; {@link #launchNanos} the first part. */
        long eager(int k) throws Throwable {
            long t0 = System.nanoTime();
            for (int i = 0; i < k; i++) {
                int result = (int) launchKernel.invokeExact(
                        function, grid, 1, 1, 256, 1, 1, 0, stream, params, MemorySegment.NULL);
                if (result != 0) {
                    check("cuLaunchKernel", result);
                }
            }
            long t1 = System.nanoTime();
            check("cuStreamSynchronize", (int) streamSynchronize.invokeExact(stream));
            long t2 = System.nanoTime();
            launchNanos = t1 - t0;
            return t2 - t0;
        }

        /**
         * {@code k} launches, then the wait GraphRT makes instead of {@code cuStreamSynchronize}, which cannot be
         * bounded: an event recorded after them, polled with {@code cuEventQuery} in a spin. Nanoseconds of the
         * wait alone: the control for where GraphRT's synchronize loses time.
         */
        long eagerPolledWait(int k) throws Throwable {
            for (int i = 0; i < k; i++) {
                check("cuLaunchKernel", (int) launchKernel.invokeExact(
                        function, grid, 1, 1, 256, 1, 1, 0, stream, params, MemorySegment.NULL));
            }
            long t0 = System.nanoTime();
            check("cuEventRecord", (int) eventRecord.invokeExact(event, stream));
            int status;
            while ((status = (int) eventQuery.invokeExact(event)) == NOT_READY) {
                Thread.onSpinWait();
            }
            check("cuEventQuery", status);
            return System.nanoTime() - t0;
        }

        /** The launch loop's part of the last {@link #eager} round (the rest is the wait), in nanoseconds. */
        long launchNanos() {
            return launchNanos;
        }

        /** Captures the chain of {@code k} launches once; later calls replay it: one graph launch, then a wait. */
        long replay(int k) throws Throwable {
            if (exec.equals(MemorySegment.NULL)) {
                MemorySegment out = arena.allocate(JAVA_LONG);
                check("cuStreamBeginCapture_v2", (int) beginCapture.invokeExact(stream, CAPTURE_MODE_THREAD_LOCAL));
                for (int i = 0; i < k; i++) {
                    check("cuLaunchKernel", (int) launchKernel.invokeExact(
                            function, grid, 1, 1, 256, 1, 1, 0, stream, params, MemorySegment.NULL));
                }
                check("cuStreamEndCapture", (int) endCapture.invokeExact(stream, out));
                graph = out.get(ADDRESS, 0);
                check("cuGraphInstantiateWithFlags", (int) instantiate.invokeExact(out, graph, 0L));
                exec = out.get(ADDRESS, 0);
            }
            long t0 = System.nanoTime();
            check("cuGraphLaunch", (int) graphLaunch.invokeExact(exec, stream));
            check("cuStreamSynchronize", (int) streamSynchronize.invokeExact(stream));
            return System.nanoTime() - t0;
        }

        /** Whether y is exactly {@code y0 + a * x * kernels} (the bench's inputs keep every sum exact in float). */
        boolean verify(float[] xs, float[] y0, float a, long kernels) throws Throwable {
            float[] got = download(y, n);
            for (int i = 0; i < n; i++) {
                if (got[i] != y0[i] + a * kernels * xs[i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void close() {
            try {
                if (!exec.equals(MemorySegment.NULL)) {
                    check("cuGraphExecDestroy", (int) graphExecDestroy.invokeExact(exec));
                    check("cuGraphDestroy", (int) graphDestroy.invokeExact(graph));
                }
                for (long pointer : new long[] {x, y, info}) {
                    check("cuMemFree_v2", (int) memFree.invokeExact(pointer));
                }
            } catch (Throwable t) {
                throw new IllegalStateException("the cuda floor's problem did not close", t);
            }
        }
    }

    /**
     * The floor of changing a graph, for {@link CaptureBench}: the chain of K saxpy launches over {@code x} and
     * {@code y}, the first reading {@code first}, captured, instantiated and uploaded (capture), captured again with
     * another scale and applied with {@code cuGraphExecUpdate} (update), and one node's parameters set to read
     * {@code second} (rebind), as {@code capture_floor.cu} does with the runtime API and GraphRT's
     * {@code capture}, {@code update} and {@code rebind} do through the driver layer.
     */
    final class Changes implements AutoCloseable {
        private static final long NODE_PARAMS_BYTES = 72; // CUDA_KERNEL_NODE_PARAMS_v2
        private final int n;
        private final int grid;
        private final long first;
        private final long second;
        private final long x;
        private final long y;
        private final long infoA;
        private final long infoB;
        private final MemorySegment paramsA;
        private final MemorySegment paramsFirstA;
        private final MemorySegment paramsFirstB;
        private final MemorySegment paramsB;
        private final MemorySegment rebound;
        private final MemorySegment nodeParams = arena.allocate(NODE_PARAMS_BYTES, 8);
        private final MemorySegment out = arena.allocate(JAVA_LONG);
        private final MemorySegment count = arena.allocate(JAVA_LONG);
        private final MemorySegment resultInfo = arena.allocate(24, 8);

        Changes(float[] xs, float[] ys, float a, float b) throws Throwable {
            n = xs.length;
            grid = (n + 255) / 256;
            first = allocate(n * 4L);
            second = allocate(n * 4L);
            x = allocate(n * 4L);
            y = allocate(n * 4L);
            infoA = allocate(8);
            infoB = allocate(8);
            for (long buffer : new long[] {first, second, x}) {
                upload(buffer, MemorySegment.ofArray(xs));
            }
            upload(y, MemorySegment.ofArray(ys));
            upload(infoA, MemorySegment.ofArray(new int[] {n, Float.floatToRawIntBits(a)}));
            upload(infoB, MemorySegment.ofArray(new int[] {n, Float.floatToRawIntBits(b)}));
            check("cuCtxSynchronize", (int) contextSynchronize.invokeExact());
            paramsA = kernelParams(x, y, infoA);
            paramsB = kernelParams(x, y, infoB);
            paramsFirstA = kernelParams(first, y, infoA);
            paramsFirstB = kernelParams(first, y, infoB);
            rebound = kernelParams(second, y, infoB);
        }

        private MemorySegment record(int k, MemorySegment firstParams, MemorySegment params) throws Throwable {
            check("cuStreamBeginCapture_v2", (int) beginCapture.invokeExact(stream, CAPTURE_MODE_THREAD_LOCAL));
            int failed = 0;
            for (int i = 0; i < k && failed == 0; i++) {
                MemorySegment launchParams = i == 0 ? firstParams : params; // invokeExact needs the static type
                failed = (int) launchKernel.invokeExact(
                        function, grid, 1, 1, 256, 1, 1, 0, stream, launchParams, MemorySegment.NULL);
            }
            int ended = (int) endCapture.invokeExact(stream, out); // ends the capture even after a failed launch
            check("cuLaunchKernel", failed);
            check("cuStreamEndCapture", ended);
            return out.get(ADDRESS, 0);
        }

        /**
         * One round: capture, update and rebind of a chain of {@code k}, each timed; returns nanoseconds {capture,
         * update, rebind 1}. With {@code check}, replays the changed graph and returns {@code null} unless y
         * became exactly {@code y0 + b * x} per launch.
         */
        long[] round(int k, boolean check, float[] xs, float[] y0, float b) throws Throwable {
            long t0 = System.nanoTime();
            MemorySegment graph = record(k, paramsFirstA, paramsA);
            check("cuGraphInstantiateWithFlags", (int) instantiate.invokeExact(out, graph, 0L));
            MemorySegment exec = out.get(ADDRESS, 0);
            check("cuGraphUpload", (int) graphUpload.invokeExact(exec, stream));
            long t1 = System.nanoTime();
            MemorySegment other = record(k, paramsFirstB, paramsB);
            check("cuGraphExecUpdate_v2", (int) execUpdate.invokeExact(exec, other, resultInfo));
            long t2 = System.nanoTime();
            MemorySegment node = firstNode(graph);
            nodeParams.fill((byte) 0);
            nodeParams.set(ADDRESS, 0, function);
            nodeParams.set(JAVA_INT, 8, grid);
            nodeParams.set(JAVA_INT, 12, 1);
            nodeParams.set(JAVA_INT, 16, 1);
            nodeParams.set(JAVA_INT, 20, 256);
            nodeParams.set(JAVA_INT, 24, 1);
            nodeParams.set(JAVA_INT, 28, 1);
            nodeParams.set(ADDRESS, 40, rebound);
            long t3 = System.nanoTime();
            check("cuGraphExecKernelNodeSetParams_v2", (int)
                    execKernelNodeSetParams.invokeExact(exec, node, nodeParams));
            long t4 = System.nanoTime();
            boolean exact = true;
            if (check) { // the node captured first reads `second` (also x); every launch adds b * x
                upload(y, MemorySegment.ofArray(y0));
                check("cuCtxSynchronize", (int) contextSynchronize.invokeExact());
                check("cuGraphLaunch", (int) graphLaunch.invokeExact(exec, stream));
                check("cuStreamSynchronize", (int) streamSynchronize.invokeExact(stream));
                float[] got = download(y, n);
                for (int i = 0; i < n && exact; i++) {
                    float want = y0[i];
                    for (int j = 0; j < k; j++) {
                        want = want + b * xs[i];
                    }
                    exact = got[i] == want;
                }
            }
            check("cuGraphExecDestroy", (int) graphExecDestroy.invokeExact(exec));
            check("cuGraphDestroy", (int) graphDestroy.invokeExact(graph));
            check("cuGraphDestroy", (int) graphDestroy.invokeExact(other));
            return exact ? new long[] {t1 - t0, t2 - t1, t4 - t3} : null;
        }

        /** The node captured first (the driver lists a captured chain's nodes in capture order, as the C floor uses). */
        private MemorySegment firstNode(MemorySegment graph) throws Throwable {
            count.set(JAVA_LONG, 0, 0);
            check("cuGraphGetNodes", (int) graphGetNodes.invokeExact(graph, MemorySegment.NULL, count));
            try (Arena listing = Arena.ofConfined()) {
                MemorySegment nodes = listing.allocate(ADDRESS, count.get(JAVA_LONG, 0));
                check("cuGraphGetNodes", (int) graphGetNodes.invokeExact(graph, nodes, count));
                return nodes.getAtIndex(ADDRESS, 0);
            }
        }

        @Override
        public void close() {
            try {
                for (long pointer : new long[] {first, second, x, y, infoA, infoB}) {
                    check("cuMemFree_v2", (int) memFree.invokeExact(pointer));
                }
            } catch (Throwable t) {
                throw new IllegalStateException("the cuda floor's changes did not close", t);
            }
        }
    }

    /** A {@code kernelParams} array for {@code cuLaunchKernel}: one pointer to each device pointer's value. */
    private MemorySegment kernelParams(long... pointers) {
        MemorySegment values = arena.allocate(JAVA_LONG, pointers.length);
        MemorySegment params = arena.allocate(ADDRESS, pointers.length);
        for (int i = 0; i < pointers.length; i++) {
            values.setAtIndex(JAVA_LONG, i, pointers[i]);
            params.setAtIndex(ADDRESS, i, values.asSlice(i * 8L, 8));
        }
        return params;
    }

    private long allocate(long bytes) throws Throwable {
        MemorySegment out = arena.allocate(JAVA_LONG);
        check("cuMemAlloc_v2", (int) memAlloc.invokeExact(out, bytes));
        return out.get(JAVA_LONG, 0);
    }

    private void upload(long dst, MemorySegment heap) throws Throwable {
        try (Arena copy = Arena.ofConfined()) {
            MemorySegment staged = copy.allocate(heap.byteSize(), 16).copyFrom(heap);
            check("cuMemcpyHtoD_v2", (int) copyHtoD.invokeExact(dst, staged, heap.byteSize()));
        }
    }

    private float[] download(long src, int n) throws Throwable {
        float[] got = new float[n];
        try (Arena copy = Arena.ofConfined()) {
            MemorySegment staged = copy.allocate(n * 4L, 16);
            check("cuMemcpyDtoH_v2", (int) copyDtoH.invokeExact(staged, src, n * 4L));
            MemorySegment.copy(staged, JAVA_FLOAT, 0, got, 0, n);
        }
        return got;
    }

    @Override
    public void close() {
        try {
            check("cuEventDestroy_v2", (int) eventDestroy.invokeExact(event));
            check("cuModuleUnload", (int) moduleUnload.invokeExact(module));
            check("cuStreamDestroy_v2", (int) streamDestroy.invokeExact(stream));
            check("cuDevicePrimaryCtxRelease_v2", (int) primaryRelease.invokeExact(device));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("the cuda floor did not close", t);
        } finally {
            arena.close();
        }
    }

    // ---- NVRTC: CUDA C to PTX -------------------------------------------------------------------------------

    private byte[] ptx(String source, String name, String architecture) throws Throwable {
        SymbolLookup nvrtc = SymbolLookup.libraryLookup(nvrtcLibrary(), arena);
        MethodHandle create = bind(nvrtc, "nvrtcCreateProgram", ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS);
        MethodHandle compile = bind(nvrtc, "nvrtcCompileProgram", ADDRESS, JAVA_INT, ADDRESS);
        MethodHandle size = bind(nvrtc, "nvrtcGetPTXSize", ADDRESS, ADDRESS);
        MethodHandle get = bind(nvrtc, "nvrtcGetPTX", ADDRESS, ADDRESS);
        MethodHandle destroy = bind(nvrtc, "nvrtcDestroyProgram", ADDRESS);
        MemorySegment program = arena.allocate(ADDRESS);
        check("nvrtcCreateProgram", (int) create.invokeExact(
                program,
                arena.allocateFrom(source),
                arena.allocateFrom(name + ".cu"),
                0,
                MemorySegment.NULL,
                MemorySegment.NULL));
        MemorySegment handle = program.get(ADDRESS, 0);
        try {
            MemorySegment options = arena.allocate(ADDRESS, 1);
            options.setAtIndex(ADDRESS, 0, arena.allocateFrom(architecture));
            check("nvrtcCompileProgram", (int) compile.invokeExact(handle, 1, options));
            MemorySegment bytes = arena.allocate(JAVA_LONG);
            check("nvrtcGetPTXSize", (int) size.invokeExact(handle, bytes));
            MemorySegment text = arena.allocate(bytes.get(JAVA_LONG, 0));
            check("nvrtcGetPTX", (int) get.invokeExact(handle, text));
            return text.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        } finally {
            check("nvrtcDestroyProgram", (int) destroy.invokeExact(program));
        }
    }

    /** {@code -Dbench.nvrtc=PATH}, else the first {@code libnvrtc.so*} of the CUDA toolkit's library directory. */
    private static Path nvrtcLibrary() throws java.io.IOException {
        String chosen = System.getProperty("bench.nvrtc");
        if (chosen != null) {
            return Path.of(chosen);
        }
        for (String dir : List.of(
                System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda") + "/lib64", "/usr/local/cuda/lib64")) {
            for (String soname : List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")) {
                Path candidate = Path.of(dir, soname);
                if (Files.exists(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("no libnvrtc.so in the CUDA toolkit; set -Dbench.nvrtc=PATH");
    }
}
