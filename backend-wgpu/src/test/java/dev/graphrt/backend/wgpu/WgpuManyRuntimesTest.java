package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.graphrt.api.Buffer;
import dev.graphrt.api.CaptureOptions;
import dev.graphrt.api.CaptureState;
import dev.graphrt.api.GpuStream;
import dev.graphrt.api.Graph;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.Kernel;
import dev.graphrt.api.KernelArgs;
import dev.graphrt.api.LaunchDims;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.conformance.KitKernels;
import dev.graphrt.core.GraphRT;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 §2, kept as a device test: on an H200 the JVM died with SIGSEGV in a driver thread whose library had
 * been unloaded, after runtimes were opened and closed one after another, each closed while a stream recorded.
 * Each of {@value #RUNTIMES} runtimes here computes exactly, then goes through that sequence: a replay pending and a
 * second stream in CAPTURE when {@code runtime.close()} is called, {@code endCapture()} after it (refused), then its
 * buffers, graph and streams closed after the runtime. Throughout, every library mapped while the first runtime
 * was open stays mapped after each close: the process keeps one WebGPU instance and never unloads the driver.
 * (On lavapipe that held before the fix too, Mesa's libraries are never unloaded; NVIDIA's ICD was.)
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuManyRuntimesTest {
    private static final int RUNTIMES = 32;
    private static final int N = 3 * KitKernels.BLOCK + 11;
    private static final LaunchDims DIMS = LaunchDims.linear(N, KitKernels.BLOCK);

    @Test
    void thirty_two_runtimes_each_closed_while_a_stream_records_leave_the_driver_loaded_and_the_next_one_exact()
            throws Exception {
        WgpuTestSupport.assumeLibraryPresent();
        Set<Path> withTheDriverLoaded = null;
        for (int i = 0; i < RUNTIMES; i++) {
            Set<Path> whileOpen = runThenCloseWhileRecording(i);
            if (withTheDriverLoaded == null) {
                withTheDriverLoaded = whileOpen;
            }
            assertThat(DriverResidency.mappedLibraries())
                    .as("libraries still mapped after runtime %d closed", i)
                    .containsAll(withTheDriverLoaded);
        }
    }

    /** Returns the libraries mapped while the runtime was open. */
    private static Set<Path> runThenCloseWhileRecording(int round) {
        GraphRuntime runtime = GraphRT.open(RuntimeOptions.defaults().backend("wgpu"));
        GpuStream stream = runtime.openStream();
        Kernel addOne = runtime.compile(KitKernels.ADD_ONE);
        Kernel mulTwo = runtime.compile(KitKernels.MUL_TWO);
        int[] x = KitKernels.pattern(N, round);
        Buffer in = stream.upload(x);
        Buffer out = stream.allocate(N * 4L);
        Graph graph = stream.capture(
                CaptureOptions.defaults(),
                s -> s.launch(addOne, DIMS, KernelArgs.of(in, out).info(N)));
        graph.replay();
        assertThat(stream.readInts(out)).as("runtime %d computes", round).isEqualTo(KitKernels.addOne(x));

        GpuStream recorder = runtime.openStream();
        Buffer scratch = recorder.allocate(N * 4L);
        graph.replay(); // still pending when the runtime closes
        recorder.prepare();
        recorder.beginCapture();
        recorder.launch(mulTwo, DIMS, KernelArgs.of(in, scratch).info(N));
        assertThat(recorder.captureState()).isEqualTo(CaptureState.CAPTURE);
        Set<Path> whileOpen = new HashSet<>(DriverResidency.mappedLibraries());

        runtime.close();

        assertThatThrownBy(recorder::endCapture)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        List<AutoCloseable> afterTheRuntime = List.of(scratch, graph, in, recorder, out, stream);
        for (AutoCloseable resource : afterTheRuntime) {
            assertThatCode(resource::close)
                    .as("closing %s after runtime %d", resource, round)
                    .doesNotThrowAnyException();
        }
        assertThat(List.of(in, out, scratch)).allMatch(Buffer::isClosed);
        assertThat(graph.isClosed()).isTrue();
        return whileOpen;
    }
}
