package dev.graphrt.backend.wgpu;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/** The wgpu backend runs the whole conformance kit (on lavapipe here and in CI, on the GPU's Vulkan driver there). */
class WgpuConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip("wgpu");
    }
}
