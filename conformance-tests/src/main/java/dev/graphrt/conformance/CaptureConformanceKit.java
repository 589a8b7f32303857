package dev.graphrt.conformance;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.model.SeamsModelGroup;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The capture-lifecycle contract every backend must pass. A backend's test is one class with one hook:
 * <pre>{@code
 * class CpuConformanceTest extends CaptureConformanceKit {
 *     protected GraphRuntime openRuntime() { return KitSupport.openOrSkip("cpu"); }
 * }
 * }</pre>
 * Every group is named for the property it defends. Capability-driven groups check a declared capability
 * works and an undeclared one fails the documented way, never skipping. Vectors span several blocks with a
 * ragged tail, values are non-trivial, outputs are poisoned before runs and compared exactly. No launch
 * passes one buffer twice: WebGPU forbids aliased writable bindings (docs/kernels.md).
 *
 * <p><b>How the groups are wired.</b> Each group is a top-level abstract class in its own file, named for what it
 * defends ({@link LifecycleOrderGroup}, ..., {@link SeamsGroup}), extending {@link KitFixture}: the runtime, stream,
 * kernels and helpers every group is written in. Below, in group-number order, each group is nested into this class
 * under its number and name (the {@code @DisplayName} the conformance report and Surefire show) by an inner class
 * whose only code is {@link KitFixture#kit()}, which returns this kit. That is the whole wiring: the fixture's
 * {@code @BeforeEach} opens the backend through {@link #openRuntime()} of this kit and its {@code @AfterEach} closes
 * it, and the fixture's {@code openRuntime()}, {@code loseDevice()} and {@code copiesBetweenRuntimes()} ask this kit,
 * so a backend overrides them here and nowhere else. This class itself opens nothing.
 *
 * <p>To add a group: write {@code SomethingGroup extends KitFixture} in its own file, its tests written as the others
 * are, and nest it below the last group here with the next number.
 */
@ExtendWith(ConformanceReport.class)
public abstract class CaptureConformanceKit {
    /** The group running now, whose runtime the default {@link #loseDevice()} loses; set by its fixture. */
    KitFixture running;

    /** The one hook: open the runtime of the backend under test (or skip with {@link KitSupport#openOrSkip}). */
    protected abstract GraphRuntime openRuntime();

    /**
     * Loses the device of the running group's runtime on purpose, for group 21 on a backend that declares
     * {@code DEVICE_LOSS_RECOVERY}. The default launches {@link KitKernels#TRAP} (CUDA C, which HIP also takes) on
     * the group's stream; the loss may surface only at the next sync. A backend whose kernels cannot trap overrides
     * this with its own way to lose a device (wgpu: a forced device loss), as a driver fault would.
     */
    protected void loseDevice() {
        running.launchTrap();
    }

    /**
     * Whether {@code GpuStream.copy} between two runtimes of this backend must work (group 27), rather than be
     * refused naming the way through the host. Not a capability: no operation of the base contract depends on it.
     * The default says no; a backend whose stream copies between its instances overrides it.
     */
    protected boolean copiesBetweenRuntimes() {
        return false;
    }

    /**
     * How many ranks group 32 (collectives) makes, one runtime each: rank 0 is the group's runtime, the others come
     * from {@link #openRankRuntime(int)}. The default is one, which every device has; the cpu backend meets three,
     * and a machine with several GPUs overrides it with their count.
     */
    protected int collectiveRanks() {
        return 1;
    }

    /**
     * Opens the runtime of rank {@code rank} (from 1) for group 32. The default opens another runtime through
     * {@link #openRuntime()}, right for backends whose runtimes are independent (cpu); a GPU backend opens device
     * {@code rank}, as NCCL wants one device per rank.
     */
    protected GraphRuntime openRankRuntime(int rank) {
        return openRuntime();
    }

    /**
     * A runtime of a backend other than {@code tested}, for group 32's refusal of a rank of another backend: cpu, or
     * template when cpu is the one tested; the test is skipped when neither is on the class path.
     */
    protected GraphRuntime openOtherBackend(String tested) {
        return KitSupport.openOrSkip(tested.equals("cpu") ? "template" : "cpu", RuntimeOptions.defaults());
    }

    /**
     * Opens the runtime through {@link #openRuntime()} with checked mode on or off: {@code -Dgraphrt.checked} is set
     * for the call ({@code RuntimeOptions.defaults()} reads it), then restored. Groups 22, 28 and 29 use it.
     */
    protected GraphRuntime openRuntime(boolean checked) {
        String before = System.getProperty("graphrt.checked");
        System.setProperty("graphrt.checked", String.valueOf(checked));
        try {
            return openRuntime();
        } finally {
            if (before == null) {
                System.clearProperty("graphrt.checked");
            } else {
                System.setProperty("graphrt.checked", before);
            }
        }
    }

    @Nested
    @DisplayName("1. Lifecycle order")
    class LifecycleOrder extends LifecycleOrderGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("2. Capture and replay")
    class CaptureAndReplay extends CaptureAndReplayGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("3. Input rewrite")
    class InputRewrite extends InputRewriteGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("4. Intermediate recycling")
    class IntermediateRecycling extends IntermediateRecyclingGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("5. Many launches with dynamic metadata")
    class ManyLaunches extends ManyLaunchesGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("6. Mid-capture allocation")
    class MidCaptureAllocation extends MidCaptureAllocationGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("7. Host sync while recording")
    class HostSyncWhileRecording extends HostSyncWhileRecordingGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("8. Writes while recording")
    class WritesWhileRecording extends WritesWhileRecordingGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("9. Destroy during an enqueued replay")
    class DestroyDuringReplay extends DestroyDuringReplayGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("10. Isolation")
    class Isolation extends IsolationGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("11. Several graphs on one stream")
    class SeveralGraphs extends SeveralGraphsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("12. Thread confinement")
    class ThreadConfinement extends ThreadConfinementGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("13. Memory")
    class Memory extends MemoryGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("14. Graph export")
    class GraphExport extends GraphExportGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("15. Replaying a graph inside a capture")
    class NestedReplay extends NestedReplayGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("16. Closing a buffer a live graph uses")
    class ClosingABufferALiveGraphUses extends ClosingABufferALiveGraphUsesGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("17. Another stream's pending work")
    class AnotherStreamsPendingWork extends AnotherStreamsPendingWorkGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("18. Closing after the runtime")
    class ClosingAfterTheRuntime extends ClosingAfterTheRuntimeGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("19. Close orders")
    class CloseOrders extends CloseOrdersGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("20. Launch arguments")
    class LaunchArguments extends LaunchArgumentsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("21. Device loss")
    class DeviceLoss extends DeviceLossGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("22. Checked mode")
    class CheckedMode extends CheckedModeGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("23. Graph update")
    class GraphUpdate extends GraphUpdateGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("24. Events")
    class Events extends EventsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("25. Fork/join capture")
    class ForkJoin extends ForkJoinGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("26. Graph pools")
    class Pools extends PoolsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("27. Copies")
    class Copies extends CopiesGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("28. Seams")
    class Seams extends SeamsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("30. Launch limits")
    class Limits extends LaunchLimitsGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("31. Programmatic dependent launch")
    class ProgrammaticDependentLaunch extends ProgrammaticDependentLaunchGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    @Nested
    @DisplayName("32. Collectives")
    class CollectivesOfCommunicators extends CollectivesGroup {
        @Override
        protected CaptureConformanceKit kit() {
            return CaptureConformanceKit.this;
        }
    }

    /**
     * The model-based group (DESIGN.md section 12): random sequences of public calls against a plain-Java model of
     * every buffer, refusal and statistic; a failure prints its seed and the shrunk sequence as Java calls.
     */
    @Nested
    @DisplayName("29. Seams model")
    class SeamsModel extends SeamsModelGroup {
        @Override
        protected GraphRuntime openRuntime(boolean checked) {
            return CaptureConformanceKit.this.openRuntime(checked);
        }
    }
}
