package dev.graphrt.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One fresh runtime set up for a close order of kit group 19: a stream, two kernels, an input and an output
 * buffer, and a graph of {@code out = in + 1} that has been replayed once and checked. Opening a scene asserts the
 * runtime computes exactly, so a scene opened after another one's odd close order proves that order left the
 * process sound. The order under test then adds what it needs (a pending replay, a recording stream) and closes
 * everything in its own order.
 */
final class CloseOrderScene {
    static final int N = 2 * KitKernels.BLOCK + 29;
    private static final long BYTES = N * 4L;
    private static final LaunchDims DIMS = LaunchDims.linear(N, KitKernels.BLOCK);

    final GraphRuntime runtime;
    final GpuStream stream;
    final Kernel addOne;
    final Kernel mulTwo;
    final int[] input;
    final Buffer in;
    final Buffer out;
    final Graph graph;

    private CloseOrderScene(GraphRuntime runtime, int seed) {
        this.runtime = runtime;
        this.stream = runtime.openStream();
        this.addOne = runtime.compile(KitKernels.ADD_ONE);
        this.mulTwo = runtime.compile(KitKernels.MUL_TWO);
        this.input = KitKernels.pattern(N, seed);
        this.in = stream.upload(input);
        this.out = stream.upload(KitKernels.poison(N));
        this.graph = stream.capture(CaptureOptions.defaults(), s -> launch(s, addOne, in, out));
    }

    /** Sets up a scene on {@code runtime} and checks that it computes exactly: eagerly and by a replay. */
    static CloseOrderScene open(GraphRuntime runtime, int seed) {
        CloseOrderScene scene = new CloseOrderScene(runtime, seed);
        scene.graph.replay();
        assertThat(scene.stream.readInts(scene.out))
                .as("a fresh runtime replays exactly (seed %d)", seed)
                .isEqualTo(KitKernels.addOne(scene.input));
        try (Buffer doubled = scene.stream.allocate(BYTES)) {
            launch(scene.stream, scene.mulTwo, scene.in, doubled);
            assertThat(scene.stream.readInts(doubled))
                    .as("a fresh runtime launches exactly (seed %d)", seed)
                    .isEqualTo(KitKernels.mulTwo(scene.input));
        }
        return scene;
    }

    static void launch(GpuStream s, Kernel kernel, Buffer src, Buffer dst) {
        s.launch(kernel, DIMS, KernelArgs.of(src, dst).info(N));
    }

    /** Enqueues replays of the graph without waiting for them: they are still pending when this returns. */
    void replayPending() {
        for (int i = 0; i < 3; i++) {
            graph.replay();
        }
        stream.flush();
    }

    /**
     * Opens a second stream and leaves it in CAPTURE with one launch recorded (into a buffer of its own, which is
     * returned with it).
     */
    Recording recordOnAnotherStream() {
        GpuStream recorder = runtime.openStream();
        Buffer scratch = recorder.allocate(BYTES);
        recorder.prepare();
        recorder.beginCapture();
        launch(recorder, mulTwo, in, scratch);
        assertThat(recorder.captureState()).isEqualTo(CaptureState.CAPTURE);
        return new Recording(recorder, scratch);
    }

    /** The buffers and the graph of the scene, in the order they were made. */
    List<AutoCloseable> buffersAndGraph() {
        return List.of(in, out, graph);
    }

    /** Checks that the scene's own buffers and graph report closed. */
    void assertBuffersAndGraphClosed() {
        assertThat(in.isClosed()).as("input buffer closed").isTrue();
        assertThat(out.isClosed()).as("output buffer closed").isTrue();
        assertThat(graph.isClosed()).as("graph closed").isTrue();
    }

    /** A second stream left recording, and the buffer its recorded launch writes. */
    record Recording(GpuStream stream, Buffer scratch) {}

    /** Closes each of {@code resources} in order and returns the first failure, or {@code null}. */
    static Throwable closeAll(List<? extends AutoCloseable> resources) {
        Throwable first = null;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Throwable failure) {
                if (first == null) {
                    first = failure;
                } else {
                    first.addSuppressed(failure);
                }
            }
        }
        return first;
    }

    /** Runs {@code action} on a new thread, waits for it, and returns what it threw, or {@code null}. */
    static Throwable onAnotherThread(String name, ThrowingRunnable action) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        action.run();
                    } catch (Throwable failure) {
                        thrown.set(failure);
                    }
                },
                name);
        thread.start();
        thread.join();
        return thrown.get();
    }

    /** Reverses a list of resources, for orders that close last-made first. */
    static List<AutoCloseable> reversed(List<? extends AutoCloseable> resources) {
        List<AutoCloseable> copy = new ArrayList<>(resources);
        return copy.reversed();
    }

    /** An action that may throw anything; what a thread of a close order runs. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
