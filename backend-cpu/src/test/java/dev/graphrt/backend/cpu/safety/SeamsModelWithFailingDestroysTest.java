package dev.graphrt.backend.cpu.safety;

import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.ReleaseFailedException;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Fault;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Hook;
import dev.graphrt.conformance.model.SeamsModelGroup;
import dev.graphrt.core.runtime.CoreRuntime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/**
 * The kit's seams model (group 29) over the cpu backend behind {@link FaultInjectingBackend}, whose first destroy of
 * a graph in each runtime fails once, as a driver's might: the model accepts the {@link ReleaseFailedException} that
 * the stream's next synchronize or close reports for it, and after the runtime closes the backend must hold no graph
 * (the core tries a failed destroy again at the next synchronize and at close). Runs at most 300 sequences: a failed
 * destroy comes in almost every one.
 */
@DisplayName("the seams model, the first graph destroy of every runtime failing once")
class SeamsModelWithFailingDestroysTest extends SeamsModelGroup {
    private FaultInjectingBackend backend;

    @Override
    protected GraphRuntime openRuntime(boolean checked) {
        backend = new FaultInjectingBackend(Map.of("cpu.threads", "2"));
        backend.failOn(Hook.DESTROY, 1);
        return new CoreRuntime(
                backend, RuntimeOptions.defaults().checked(checked).waitTimeout(Duration.ofSeconds(20)));
    }

    @Override
    protected boolean injected(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof Fault fault && fault.hook == Hook.DESTROY) {
                return failure instanceof ReleaseFailedException;
            }
        }
        return false;
    }

    @Override
    protected String leftBehind() {
        int graphs = backend.liveGraphs();
        return graphs == 0
                ? null
                : "the backend still holds " + graphs + " graph(s) the core never destroyed (a "
                        + "destroy that failed once was not tried again)";
    }

    @Override
    protected int sequences() {
        return Math.min(super.sequences(), 300);
    }
}
