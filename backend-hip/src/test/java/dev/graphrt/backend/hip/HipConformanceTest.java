package dev.graphrt.backend.hip;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/**
 * The hip backend runs the whole conformance kit; without a HIP device every test is skipped with the probe's
 * reason ("no HIP device (hipGetDeviceCount → 100)" with Debian's libamdhip64-5). On the NVIDIA H200 it runs
 * against the HIP-on-CUDA test library (src/test/native/hip_on_cuda.cpp, GRAPHRT_HIP_LIB).
 */
class HipConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip("hip");
    }

    /** Its stream copies between its runtimes (another device's memory, or another instance's). */
    @Override
    protected boolean copiesBetweenRuntimes() {
        return true;
    }
}
