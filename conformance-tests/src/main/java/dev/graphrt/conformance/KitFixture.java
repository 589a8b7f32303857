package dev.graphrt.conformance;

import static dev.graphrt.conformance.KitKernels.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.Capability;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every group of {@link CaptureConformanceKit} shares: a fresh runtime of the backend under test for each test,
 * with a stream and the kit's kernels, the helpers the groups are written in, and the vector size they use.
 *
 * <p>A group is a top-level abstract subclass ({@code LifecycleOrderGroup}, ...), nested into the kit by a class of a
 * few lines whose only code is {@link #kit()}: it returns the enclosing kit. Before each test this fixture opens the
 * backend through the kit's one hook, {@link CaptureConformanceKit#openRuntime()}; after it, it closes what the test
 * tracked, cancels a capture the test left open, and closes the stream and the runtime. The kit's own instance opens
 * nothing. {@link #openRuntime()}, {@link #loseDevice()} and {@link #copiesBetweenRuntimes()} here ask the kit, so a
 * group reads as if it were the kit, and a backend overrides those hooks on its kit class only.
 */
public abstract class KitFixture {
    /** Elements per vector: several blocks and a ragged tail. */
    protected static final int N = 4 * BLOCK + 37;
    /** Bytes of one vector. */
    protected static final long BYTES = N * 4L;
    /** One thread per element of a vector. */
    protected static final LaunchDims DIMS = LaunchDims.linear(N, BLOCK);

    protected GraphRuntime runtime;
    protected GpuStream stream;
    protected Kernel addOne;
    protected Kernel mulTwo;
    protected Kernel pingPong;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** The kit this group runs in: the nested class in {@link CaptureConformanceKit} returns its enclosing kit. */
    protected abstract CaptureConformanceKit kit();

    @BeforeEach
    void openBackend() {
        kit().running = this;
        runtime = openRuntime();
        stream = runtime.openStream();
        addOne = runtime.compile(KitKernels.ADD_ONE);
        mulTwo = runtime.compile(KitKernels.MUL_TWO);
        pingPong = runtime.compile(KitKernels.PING_PONG);
    }

    @AfterEach
    void closeBackend() throws Exception {
        if (runtime == null) {
            return;
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (stream.captureState() != CaptureState.NO_CAPTURE) {
            stream.cancelCapture();
        }
        stream.close();
        runtime.close();
    }

    // ---- the kit's hooks ------------------------------------------------------------------------------

    /** A new runtime of the backend under test, through the kit's hook (or the test is skipped). */
    protected GraphRuntime openRuntime() {
        return kit().openRuntime();
    }

    /** The backend's runtime in checked mode: the hook, with {@code graphrt.checked} set while it opens. */
    protected GraphRuntime openCheckedRuntime() {
        return kit().openRuntime(true);
    }

    /** Loses the device of {@link #runtime} on purpose: {@link CaptureConformanceKit#loseDevice()}. */
    protected void loseDevice() {
        kit().loseDevice();
    }

    /** {@link CaptureConformanceKit#copiesBetweenRuntimes()}. */
    protected boolean copiesBetweenRuntimes() {
        return kit().copiesBetweenRuntimes();
    }

    /** The kit's default way to lose the device: {@link KitKernels#TRAP} launched on {@link #stream}. */
    void launchTrap() {
        Kernel trap = runtime.compile(KitKernels.TRAP);
        launch(stream, trap, upload(KitKernels.pattern(N, 48)), poisoned());
    }

    protected boolean declares(Capability capability) {
        return runtime.capabilities().contains(capability);
    }

    // ---- helpers ------------------------------------------------------------------------------------

    protected Buffer upload(int[] data) {
        return track(stream.upload(data));
    }

    protected Buffer poisoned() {
        return upload(KitKernels.poison(N));
    }

    /** Closes {@code resource} after the test, before the stream and the runtime, last tracked first. */
    protected <T extends AutoCloseable> T track(T resource) {
        toClose.add(resource);
        return resource;
    }

    protected static void launch(GpuStream s, Kernel kernel, Buffer src, Buffer dst, int... extraInfo) {
        int[] info = new int[1 + extraInfo.length];
        info[0] = N;
        System.arraycopy(extraInfo, 0, info, 1, extraInfo.length);
        s.launch(kernel, DIMS, KernelArgs.of(src, dst).info(info));
    }

    protected int[] read(Buffer buffer) {
        return stream.readInts(buffer);
    }

    protected Graph capture(Consumer<GpuStream> step) {
        return track(stream.capture(CaptureOptions.defaults(), step));
    }

    /** A vector of {@code 0x5E000000 + i}: what a sentinel buffer holds, so a stray write shows. */
    protected static int[] marker(int i) {
        int[] m = new int[N];
        Arrays.fill(m, 0x5E000000 + i);
        return m;
    }

    /** A full capture, replay and check on the stream, proving it is usable and can capture again. */
    protected void assertRecapturable() {
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        int[] x = KitKernels.pattern(N, 99);
        Buffer in = upload(x);
        Buffer out = poisoned();
        Graph graph = capture(s -> launch(s, addOne, in, out));
        stream.write(out, KitKernels.poison(N));
        graph.replay();
        assertThat(read(out)).isEqualTo(KitKernels.addOne(x));
    }

    /**
     * A capture of two accepted launches ({@code in + 1} into mid, then {@code mid * 2} into out) with
     * {@code refusals} called between them (given mid and out), each asserting its own refusal: the stream is still
     * recording afterwards, and the sealed graph replays the accepted launches only. Returns the graph.
     */
    protected Graph assertRefusalsInsideACaptureRecordNothing(int seed, BiConsumer<Buffer, Buffer> refusals) {
        int[] x = KitKernels.pattern(N, seed);
        Buffer in = upload(x);
        Buffer mid = poisoned();
        Buffer out = poisoned();
        stream.prepare();
        stream.beginCapture();

        launch(stream, addOne, in, mid);
        refusals.accept(mid, out);
        assertThat(stream.captureState()).as("still recording").isEqualTo(CaptureState.CAPTURE);
        launch(stream, mulTwo, mid, out);
        Graph graph = track(stream.endCapture());

        graph.replay();
        assertThat(read(out))
                .as("the graph holds the accepted launches only")
                .isEqualTo(KitKernels.mulTwo(KitKernels.addOne(x)));
        return graph;
    }

    /** After a capture ended in a refusal: the stream is back in NO_CAPTURE, runs work, and can capture again. */
    protected void assertUsableAfterARefusedCapture(Buffer in, Buffer out, int[] input) {
        assertThat(stream.captureState()).isEqualTo(CaptureState.NO_CAPTURE);
        stream.write(in, input);
        launch(stream, addOne, in, out);
        assertThat(read(out)).as("the stream stays usable").isEqualTo(KitKernels.addOne(input));
        assertRecapturable();
    }
}
