package dev.graphrt.backend.cpu.teeth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Proof that the kit catches broken backends: the whole kit runs against each deliberately broken wrapper
 * of the CPU backend and must fail at least one named test. The matrix (broken backend, the tests that
 * caught it) is written to {@code target/conformance/kit-teeth.md}.
 */
class KitHasTeethTest {
    private static final Map<BrokenBackends, List<String>> MATRIX = new LinkedHashMap<>();

    private static Class<?> kitFor(BrokenBackends broken) {
        return switch (broken) {
            case REPLAYS_ONLY_THE_FIRST_LAUNCH -> BrokenKits.ReplaysOnlyTheFirstLaunch.class;
            case SNAPSHOTS_INPUTS_AT_CAPTURE -> BrokenKits.SnapshotsInputsAtCapture.class;
            case EXECUTES_LAUNCHES_DURING_CAPTURE -> BrokenKits.ExecutesLaunchesDuringCapture.class;
            case FENCE_RETURNS_BEFORE_THE_WORK_IS_DONE -> BrokenKits.FenceReturnsBeforeTheWorkIsDone.class;
            case DECLARES_MID_CAPTURE_ALLOCATION_BUT_CANNOT -> BrokenKits.DeclaresMidCaptureAllocationButCannot.class;
            case REPORTS_ONE_PARAMETER_TOO_MANY -> BrokenKits.ReportsOneParameterTooMany.class;
            case REPORTS_NO_PARAMETER_COUNT -> BrokenKits.ReportsNoParameterCount.class;
            case REPORTS_DEVICE_LOSS_AS_AN_ORDINARY_ERROR -> BrokenKits.ReportsDeviceLossAsAnOrdinaryError.class;
            case KEEPS_THE_OLD_GRAPH_ON_UPDATE -> BrokenKits.KeepsTheOldGraphOnUpdate.class;
            case WAITS_FOR_NOTHING -> BrokenKits.WaitsForNothing.class;
            case SCRIBBLES_OVER_A_DESTROYED_GRAPHS_MEMORY -> BrokenKits.ScribblesOverADestroyedGraphsMemory.class;
            case RUNS_A_RECORDING_OUT_OF_ORDER -> BrokenKits.RunsARecordingOutOfOrder.class;
            case COPIES_ONE_WORD_SHORT -> BrokenKits.CopiesOneWordShort.class;
            case OVERSTATES_ITS_GRID_LIMIT -> BrokenKits.OverstatesItsGridLimit.class;
            case LETS_KERNELS_THAT_DID_NOT_OPT_IN_START_EARLY -> BrokenKits.LetsKernelsThatDidNotOptInStartEarly.class;
            case MEETS_ONLY_ITSELF -> BrokenKits.MeetsOnlyItself.class;
        };
    }

    @ParameterizedTest(name = "{0} fails the kit")
    @EnumSource(BrokenBackends.class)
    void the_kit_catches_a_broken_backend(BrokenBackends broken) {
        List<String> caught = new ArrayList<>();
        int[] passed = {0};
        Launcher launcher = LauncherFactory.create();
        launcher.execute(
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectClass(kitFor(broken)))
                        .configurationParameter("graphrt.conformance.report", "false")
                        .build(),
                new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                        if (!test.isTest()) {
                            return;
                        }
                        switch (result.getStatus()) {
                            case SUCCESSFUL -> passed[0]++;
                            case FAILED -> caught.add(test.getDisplayName().replace("()", ""));
                            case ABORTED -> {} // an assumption not met (a capability not declared) catches nothing
                        }
                    }
                });
        MATRIX.put(broken, caught);
        assertThat(caught).as("%s must fail at least one kit test", broken).isNotEmpty();
        assertThat(passed[0] + caught.size()).as("the whole kit ran").isGreaterThanOrEqualTo(22);
    }

    @AfterAll
    static void writeMatrix() throws IOException {
        StringBuilder md = new StringBuilder("# The kit has teeth\n\nEach broken backend is the CPU backend with one "
                + "defect; the whole kit ran against it. Tests that failed (and so caught it):\n\n"
                + "| broken backend | kit tests that caught it |\n|---|---|\n");
        MATRIX.forEach((broken, caught) -> md.append("| ")
                .append(broken.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                .append(" | ")
                .append(caught.size())
                .append(": ")
                .append(String.join(", ", caught))
                .append(" |\n"));
        Path dir = Path.of("target", "conformance");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kit-teeth.md"), md);
    }
}
