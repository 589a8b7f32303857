package dev.graphrt.backend.cpu.safety;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.graphrt.api.GpuStream;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.RuntimeOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Review finding: buffer and graph close were made safe to call from a Java kernel while the host waits in
 * synchronize() (they never take a stream lock), but runtime.trim() takes every stream's lock: called from a
 * kernel while the host holds that stream's lock in synchronize(), each waits for the other until the wait
 * timeout, and synchronize() then fails with a WaitTimeoutException although nothing is wrong with the device.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class TrimFromAKernelTest {

    @Test
    void a_kernel_calling_trim_while_the_host_waits_in_synchronize_does_not_deadlock_until_the_timeout() {
        try (Rig rig = new Rig(RuntimeOptions.defaults().waitTimeout(Duration.ofSeconds(8)))) {
            GpuStream stream = rig.runtime.openStream();
            AtomicBoolean trimmed = new AtomicBoolean();
            var trimmer = rig.hostKernel("trimmer", () -> {
                Rig.sleep(100); // the host is inside synchronize() by now
                rig.runtime.trim();
                trimmed.set(true);
            });
            stream.launch(trimmer, Rig.ONCE, KernelArgs.of());

            assertTimeoutPreemptively(Duration.ofSeconds(4), stream::synchronize);
            assertThat(trimmed).isTrue();
        }
    }
}
