package dev.graphrt.backend.wgpu;

import static org.assertj.core.api.Assertions.fail;

import dev.graphrt.api.KernelSource;
import dev.graphrt.spi.Availability;
import dev.graphrt.spi.Backend;
import dev.graphrt.spi.BackendConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Opens the real backend for a test class. A test is skipped only when the webgpu library is genuinely absent
 * (scripts/setup-webgpu.sh not run); on CI ({@code CI} set) or with {@code GRAPHRT_REQUIRE_WGPU=1} that is a
 * failure instead, so the wgpu tests can never pass by skipping there.
 */
@SuppressWarnings("restricted")
final class WgpuTestSupport {
    private WgpuTestSupport() {}

    static boolean required() {
        return System.getenv("CI") != null || "1".equals(System.getenv("GRAPHRT_REQUIRE_WGPU"));
    }

    static void assumeLibraryPresent() {
        LibraryLocator location = LibraryLocator.locate(Map.of());
        if (location.path().isEmpty()) {
            if (required()) {
                fail("the webgpu library is required here but absent: " + location.searched());
            }
            Assumptions.abort("webgpu library absent (run scripts/setup-webgpu.sh): " + location.searched());
        }
    }

    static WgpuBackend open() {
        return open(Map.of());
    }

    /** Opens the backend with {@code options} (for instance {@code wgpu.replayChunk}). */
    static WgpuBackend open(Map<String, String> options) {
        assumeLibraryPresent();
        Availability availability = new WgpuBackendProvider(options).probe();
        if (!availability.available()) {
            fail("webgpu library present but the backend is unavailable: " + availability.detail());
        }
        Backend backend = new WgpuBackendProvider(options).open(BackendConfig.defaults());
        return (WgpuBackend) backend;
    }

    /**
     * Loses {@code backend}'s device on purpose through Dawn's {@code wgpuDeviceForceLoss}, as a driver would on a
     * real loss (reason Unknown); the test is skipped on a webgpu library that is not Dawn.
     */
    static void forceLoss(WgpuBackend backend, String why) {
        Optional<MemorySegment> symbol = SymbolLookup.libraryLookup(NativeLibrary.loadedPath(), Arena.global())
                .find("wgpuDeviceForceLoss");
        Assumptions.assumeTrue(symbol.isPresent(), "this webgpu library has no wgpuDeviceForceLoss (not Dawn)");
        MethodHandle force = Linker.nativeLinker()
                .downcallHandle(
                        symbol.get(),
                        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, WebGpuHeader.STRING_VIEW));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(WebGpuHeader.STRING_VIEW);
            message.set(ValueLayout.ADDRESS, 0, arena.allocateFrom(why));
            message.set(ValueLayout.JAVA_LONG, 8, WebGpuHeader.STRLEN);
            WgpuDevice device = backend.nativeDevice();
            device.lock.lock();
            try {
                force.invokeExact(device.device, 1, message);
            } finally {
                device.lock.unlock();
            }
        } catch (Throwable t) {
            throw new AssertionError("wgpuDeviceForceLoss failed", t);
        }
    }

    static MemorySegment ints(Arena arena, int... values) {
        return arena.allocateFrom(ValueLayout.JAVA_INT, values);
    }

    static MemorySegment floats(Arena arena, float... values) {
        return arena.allocateFrom(ValueLayout.JAVA_FLOAT, values);
    }

    static int[] toInts(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_INT);
    }

    static float[] toFloats(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_FLOAT);
    }

    /** out[i] = in[i] + 1 for i < info[0]. */
    static final KernelSource ADD_ONE = KernelSource.named("add_one").wgsl("""
            @group(0) @binding(0) var<storage, read_write> src: array<f32>;
            @group(0) @binding(1) var<storage, read_write> dst: array<f32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;

            @compute @workgroup_size(64)
            fn add_one(@builtin(global_invocation_id) id: vec3<u32>) {
                let i = i32(id.x);
                if (i < info[0]) {
                    dst[i] = src[i] + 1.0;
                }
            }
            """);

    /** b[i] = a[i] * 1664525 + info[1] + i for i < info[0], in wrapping u32 arithmetic. */
    static final KernelSource LCG_STEP = KernelSource.named("lcg_step").wgsl("""
            @group(0) @binding(0) var<storage, read_write> a: array<u32>;
            @group(0) @binding(1) var<storage, read_write> b: array<u32>;
            @group(0) @binding(2) var<storage, read_write> info: array<i32>;

            @compute @workgroup_size(64)
            fn lcg_step(@builtin(global_invocation_id) id: vec3<u32>) {
                let i = id.x;
                if (i < u32(info[0])) {
                    b[i] = a[i] * 1664525u + u32(info[1]) + i;
                }
            }
            """);
}
