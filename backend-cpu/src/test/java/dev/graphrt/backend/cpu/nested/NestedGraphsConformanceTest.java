package dev.graphrt.backend.cpu.nested;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.CaptureConformanceKit;

/** The whole kit over a software backend that declares NESTED_GRAPHS: group 15 takes its recording branch. */
class NestedGraphsConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return NestedGraphsBackend.openRuntime(RuntimeOptions.defaults());
    }
}
