package dev.graphrt.backend.cpu.safety;

import static org.assertj.core.api.Assertions.assertThat;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.KernelSource;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Review finding: runtime.close() closes a snapshot of its streams, then frees every pooled byte. A stream
 * opened by another thread after the snapshot (here: a Java kernel that the closing stream waits for, so the
 * interleaving is certain) is never closed, and its pending work runs on memory the runtime already freed
 * (on a GPU: a silent write into freed device memory; on cpu: an access to a closed arena).
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class StreamOpenedWhileClosingTest {

    @Test
    void a_stream_opened_while_the_runtime_closes_never_runs_work_on_memory_the_runtime_freed() {
        Rig rig = new Rig();
        AtomicBoolean sawFreedMemory = new AtomicBoolean();
        AtomicBoolean wrote = new AtomicBoolean();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        Kernel slowWriter = rig.runtime.compile(KernelSource.named("slowWriter").java((args, from, to) -> {
            Rig.sleep(300);
            try {
                args.buffer(0).setAtIndex(ValueLayout.JAVA_INT, 0, 42);
                wrote.set(true);
            } catch (IllegalStateException freed) {
                sawFreedMemory.set(true);
            }
        }));
        GpuStream closing = rig.runtime.openStream();
        Kernel opener = rig.hostKernel("opener", () -> {
            Rig.sleep(200); // runtime.close() is waiting for this stream's work by now
            try {
                GpuStream late = rig.runtime.openStream();
                Buffer buffer = late.allocate(64);
                late.launch(slowWriter, Rig.ONCE, KernelArgs.of(buffer));
                late.flush();
            } catch (RuntimeException refusedByClose) {
                refused.set(refusedByClose);
            }
        });
        closing.launch(opener, Rig.ONCE, KernelArgs.of());
        closing.flush();

        rig.runtime.close();
        Rig.sleep(600);

        assertThat(sawFreedMemory)
                .as("the late stream's kernel ran on memory runtime.close() had freed")
                .isFalse();
    }
}
