package dev.graphrt.backend.cuda;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/** The cuda backend runs the whole conformance kit; without an NVIDIA driver every test is skipped with the probe's reason. */
class CudaConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip("cuda");
    }

    /** Its stream copies between its runtimes (another device's memory, or another instance's). */
    @Override
    protected boolean copiesBetweenRuntimes() {
        return true;
    }
}
