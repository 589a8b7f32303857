package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.graphrt.api.LaunchDims;
import dev.graphrt.spi.BackendConfig;
import dev.graphrt.spi.BackendStream;
import dev.graphrt.spi.Bindings;
import dev.graphrt.spi.CompiledKernel;
import dev.graphrt.spi.DeviceAllocation;
import dev.graphrt.spi.DeviceSlice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The headless fallback: Dawn's OpenGL ES backend on Mesa's llvmpipe (EGL surfaceless, compatibility level). */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WgpuGlesFallbackTest {

    @Test
    void the_opengl_es_fallback_opens_headless_and_computes_exactly() {
        WgpuTestSupport.assumeLibraryPresent();
        WgpuBackendProvider gles = new WgpuBackendProvider(Map.of(WgpuBackendProvider.ADAPTER_OPTION, "gles"));
        if (!gles.probe().available()) {
            fail("OpenGL ES fallback unavailable (scripts/setup-webgpu.sh installs EGL): "
                    + gles.probe().detail());
        }
        try (WgpuBackend backend = (WgpuBackend) gles.open(BackendConfig.defaults())) {
            assertThat(backend.device().driver()).contains("OpenGLES");
            CompiledKernel addOne = backend.compiler().compile(WgpuTestSupport.ADD_ONE);
            int n = 777;
            DeviceAllocation block = backend.memory().allocate(3 * 4096L);
            DeviceSlice src = new DeviceSlice(block, 0, n * 4L);
            DeviceSlice dst = new DeviceSlice(block, 4096, n * 4L);
            DeviceSlice info = new DeviceSlice(block, 8192, 4);
            BackendStream stream = backend.openStream();
            try (Arena arena = Arena.ofConfined()) {
                float[] input = new float[n];
                float[] expected = new float[n];
                for (int i = 0; i < n; i++) {
                    input[i] = (i % 17) * -3.25f + i;
                    expected[i] = input[i] + 1.0f;
                }
                stream.write(src, WgpuTestSupport.floats(arena, input));
                stream.write(dst, WgpuTestSupport.floats(arena, new float[n]));
                backend.memory().upload(info, WgpuTestSupport.ints(arena, n));
                stream.launch(addOne, LaunchDims.linear(n, 64), new Bindings(List.of(src, dst), info, 1));
                MemorySegment out = arena.allocate(n * 4L);
                stream.read(dst, out);

                assertThat(WgpuTestSupport.toFloats(out)).containsExactly(expected);
            } finally {
                stream.close();
                backend.memory().free(block);
            }
        }
    }
}
