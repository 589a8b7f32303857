package dev.graphrt.backend.cpu.teeth;

import com.google.inject.util.Modules;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.core.GraphRT;
import dev.graphrt.core.GraphRTModule;
import dev.graphrt.core.ProviderSource;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendProvider;
import java.util.List;

/**
 * The kit bound to each broken backend. Nested, so Surefire never runs them as ordinary tests:
 * {@link KitHasTeethTest} runs them through the JUnit Platform launcher and expects failures.
 */
final class BrokenKits {
    private BrokenKits() {}

    static GraphRuntime open(BrokenBackends broken) {
        return open(broken.open());
    }

    static GraphRuntime open(Backend backend) {
        BackendProvider provider = new BackendProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public int priority() {
                return 0;
            }

            @Override
            public Availability probe() {
                return Availability.available(backend.name());
            }

            @Override
            public Backend open(BackendConfig config) {
                return backend;
            }
        };
        return GraphRT.open(Modules.override(new GraphRTModule(RuntimeOptions.defaults()))
                .with(binder -> binder.bind(ProviderSource.class).toInstance(() -> List.of(provider))));
    }

    static class ReplaysOnlyTheFirstLaunch extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.REPLAYS_ONLY_THE_FIRST_LAUNCH);
        }
    }

    static class SnapshotsInputsAtCapture extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.SNAPSHOTS_INPUTS_AT_CAPTURE);
        }
    }

    static class ExecutesLaunchesDuringCapture extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.EXECUTES_LAUNCHES_DURING_CAPTURE);
        }
    }

    static class FenceReturnsBeforeTheWorkIsDone extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.FENCE_RETURNS_BEFORE_THE_WORK_IS_DONE);
        }
    }

    static class DeclaresMidCaptureAllocationButCannot extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.DECLARES_MID_CAPTURE_ALLOCATION_BUT_CANNOT);
        }
    }

    static class ReportsOneParameterTooMany extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.REPORTS_ONE_PARAMETER_TOO_MANY);
        }
    }

    static class ReportsNoParameterCount extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.REPORTS_NO_PARAMETER_COUNT);
        }
    }

    static class ReportsDeviceLossAsAnOrdinaryError extends CaptureConformanceKit {
        private BrokenBackends.LosableBackend backend;

        @Override
        protected GraphRuntime openRuntime() {
            backend = (BrokenBackends.LosableBackend) BrokenBackends.REPORTS_DEVICE_LOSS_AS_AN_ORDINARY_ERROR.open();
            return open(backend);
        }

        @Override
        protected void loseDevice() {
            backend.lose();
        }
    }

    static class RunsARecordingOutOfOrder extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.RUNS_A_RECORDING_OUT_OF_ORDER);
        }
    }

    static class ScribblesOverADestroyedGraphsMemory extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.SCRIBBLES_OVER_A_DESTROYED_GRAPHS_MEMORY);
        }
    }

    static class WaitsForNothing extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.WAITS_FOR_NOTHING);
        }
    }

    static class KeepsTheOldGraphOnUpdate extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.KEEPS_THE_OLD_GRAPH_ON_UPDATE);
        }
    }

    static class CopiesOneWordShort extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.COPIES_ONE_WORD_SHORT);
        }
    }

    static class OverstatesItsGridLimit extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.OVERSTATES_ITS_GRID_LIMIT);
        }
    }

    static class LetsKernelsThatDidNotOptInStartEarly extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.LETS_KERNELS_THAT_DID_NOT_OPT_IN_START_EARLY);
        }
    }

    static class MeetsOnlyItself extends CaptureConformanceKit {
        @Override
        protected GraphRuntime openRuntime() {
            return open(BrokenBackends.MEETS_ONLY_ITSELF);
        }

        /** Three ranks, as the cpu kit meets: with one, meeting only itself is right. */
        @Override
        protected int collectiveRanks() {
            return 3;
        }
    }
}
