package dev.graphrt.core.lifecycle;

import dev.graphrt.api.CaptureMode;
import dev.graphrt.api.GraphKind;
import dev.graphrt.core.recording.LaunchRecorder;
import dev.graphrt.spi.BackendGraph;
import dev.graphrt.spi.CaptureSupport;
import dev.graphrt.spi.DriverCapture;
import dev.graphrt.spi.RecordedLaunches;
import dev.graphrt.spi.SoftwareGraphs;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A stream's capture support as its {@link CaptureLifecycle} drives it: the one choice between the SPI's two capture
 * contracts, made once when the stream opens ({@link #of}). The lifecycle calls these steps and never asks which
 * kind it has; the graph kind is what the choice was.
 */
sealed interface WindowCapture {

    /** The support {@code stream.capture()} offered, as the lifecycle drives it. */
    static WindowCapture of(CaptureSupport support) {
        return switch (Objects.requireNonNull(support, "the backend stream's capture()")) {
            case DriverCapture driver -> new Driver(driver);
            case SoftwareGraphs graphs -> new Software(graphs);
        };
    }

    GraphKind kind();

    /** The core's record of a window: a software graph's launches, or labels beside the driver's recording. */
    LaunchRecorder newRecorder();

    /** CAPTURE entered. */
    void open(CaptureMode mode);

    /** The window ends as a new graph. */
    BackendGraph close(RecordedLaunches recording);

    /** The window ends as the new recording of the live graph {@code target} ({@code Graph.update}). */
    BackendGraph closeInto(BackendGraph target, RecordedLaunches recording);

    /** {@code graph}'s launches at {@code changed} now bind other buffers ({@code Graph.rebind}). */
    BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed);

    /** The window is abandoned. */
    void abort();

    /**
     * Whether an open window in {@code mode}, begun on {@code owner}, forbids device calls from {@code thread} on the
     * context's other streams (the driver would refuse them and invalidate the capture).
     */
    boolean forbidsDeviceCallsFrom(Thread thread, CaptureMode mode, @Nullable Thread owner);

    /** The driver records; the core keeps labels and the launches for diagnosis and rebinds. */
    record Driver(DriverCapture driver) implements WindowCapture {
        @Override
        public GraphKind kind() {
            return GraphKind.HARDWARE;
        }

        @Override
        public LaunchRecorder newRecorder() {
            return new LaunchRecorder(false);
        }

        @Override
        public void open(CaptureMode mode) {
            driver.open(mode);
        }

        @Override
        public BackendGraph close(RecordedLaunches recording) {
            return driver.close();
        }

        @Override
        public BackendGraph closeInto(BackendGraph target, RecordedLaunches recording) {
            return driver.closeInto(target);
        }

        @Override
        public BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
            return driver.rebind(graph, before, after, changed);
        }

        @Override
        public void abort() {
            driver.abort();
        }

        /** GLOBAL forbids them from every thread, THREAD_LOCAL from the capturing one; RELAXED forbids nothing. */
        @Override
        public boolean forbidsDeviceCallsFrom(Thread thread, CaptureMode mode, @Nullable Thread owner) {
            return mode == CaptureMode.GLOBAL || (mode == CaptureMode.THREAD_LOCAL && owner == thread);
        }
    }

    /** The core records; the backend seals the recording, and nothing is open in it until then. */
    record Software(SoftwareGraphs graphs) implements WindowCapture {
        @Override
        public GraphKind kind() {
            return GraphKind.SOFTWARE;
        }

        @Override
        public LaunchRecorder newRecorder() {
            return new LaunchRecorder(true);
        }

        @Override
        public void open(CaptureMode mode) {}

        @Override
        public BackendGraph close(RecordedLaunches recording) {
            return graphs.seal(recording);
        }

        @Override
        public BackendGraph closeInto(BackendGraph target, RecordedLaunches recording) {
            return graphs.update(target, recording);
        }

        /** A software graph's rebind is an update with the patched recording. */
        @Override
        public BackendGraph rebind(BackendGraph graph, RecordedLaunches before, RecordedLaunches after, int[] changed) {
            return graphs.update(graph, after);
        }

        @Override
        public void abort() {}

        @Override
        public boolean forbidsDeviceCallsFrom(Thread thread, CaptureMode mode, @Nullable Thread owner) {
            return false;
        }
    }
}
