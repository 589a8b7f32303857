package dev.graphrt.backend.cpu.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.graphrt.api.GpuStream;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.backend.cpu.safety.FaultInjectingBackend.Hook;
import java.time.Duration;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Review finding: runtime.close() is idempotent only once it finished (it checks scope.isClosed(), which is set
 * half-way). A second close() while the first one runs (another thread; here a Java kernel the first close
 * waits for, so the interleaving is certain) runs the whole sequence again: it blocks on the stream lock the
 * first close holds (until the wait timeout), and Backend.close() is called twice (on cuda/hip: the context
 * released twice).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ConcurrentRuntimeCloseTest {

    @Test
    void a_second_runtime_close_while_the_first_runs_neither_waits_for_the_timeout_nor_closes_the_backend_twice() {
        Rig rig = new Rig(RuntimeOptions.defaults().waitTimeout(Duration.ofSeconds(3)));
        GpuStream stream = rig.runtime.openStream();
        var closer = rig.hostKernel("closer", () -> {
            Rig.sleep(100); // the host's runtime.close() waits for this stream's work by now
            rig.runtime.close();
        });
        stream.launch(closer, Rig.ONCE, KernelArgs.of());
        stream.flush();

        assertTimeoutPreemptively(Duration.ofSeconds(2), rig.runtime::close);
        Rig.sleep(200);
        assertThat(rig.backend.calls(Hook.BACKEND_CLOSE))
                .as("Backend.close() calls")
                .isEqualTo(1);
    }
}
