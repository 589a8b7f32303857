package dev.graphrt.backend.cpu;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/** The cpu backend passes the whole conformance kit. */
class CpuConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip("cpu");
    }

    /** Its stream copies between its runtimes (another device's memory, or another instance's). */
    @Override
    protected boolean copiesBetweenRuntimes() {
        return true;
    }

    /** Three runtimes meet in its collectives: more than two, so a rank-order mistake shows. */
    @Override
    protected int collectiveRanks() {
        return 3;
    }
}
