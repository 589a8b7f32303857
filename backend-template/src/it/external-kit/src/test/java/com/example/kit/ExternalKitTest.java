package com.example.kit;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/** The one class an outside build needs: the whole kit, against the backend its ServiceLoader finds by name. */
class ExternalKitTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip("template");
    }
}
