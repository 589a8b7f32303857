package dev.graphrt.backend.template;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.conformance.CaptureConformanceKit;
import dev.graphrt.conformance.KitSupport;

/** The template backend passes the whole conformance kit: what it declares works, what it does not is refused. */
class TemplateConformanceTest extends CaptureConformanceKit {
    @Override
    protected GraphRuntime openRuntime() {
        return KitSupport.openOrSkip(TemplateBackendProvider.NAME);
    }
}
