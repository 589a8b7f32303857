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
}
