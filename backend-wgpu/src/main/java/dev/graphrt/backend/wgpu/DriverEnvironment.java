package dev.graphrt.backend.wgpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the backend run without the environment {@code scripts/setup-webgpu.sh} prints, where that can be done
 * from inside the process and without hiding anything the user set:
 * <ul>
 *   <li>the private lavapipe next to the library ({@code .natives/lavapipe/lvp_icd.json}) is <em>added</em> to the
 *       Vulkan loader's drivers with {@code VK_ADD_DRIVER_FILES} (real GPUs stay visible), and its newer libdrm is
 *       loaded first so the driver finds it, but only when none of {@code VK_ICD_FILENAMES},
 *       {@code VK_DRIVER_FILES}, {@code VK_ADD_DRIVER_FILES} is set;</li>
 *   <li>before the OpenGL ES fallback, {@code EGL_PLATFORM=surfaceless} when neither it nor a display is set
 *       (Mesa's EGL cannot initialise headless otherwise).</li>
 * </ul>
 * The process environment is changed through libc's {@code setenv}, once, before Dawn first reads it: the
 * process's one instance ({@link WebGpuProcess}, {@link WgpuInstance}) calls each preparation once, so this class
 * keeps no state. Turned off with the option {@value #OPTION}{@code =false}.
 */
@SuppressWarnings("restricted") // raw native addresses and libraries are this class's job
final class DriverEnvironment {
    static final String OPTION = "wgpu.autoEnv";
    private static final Logger LOG = LoggerFactory.getLogger(DriverEnvironment.class);

    private DriverEnvironment() {}

    static boolean enabled(Map<String, String> options) {
        return !"false".equalsIgnoreCase(options.getOrDefault(OPTION, "true").strip());
    }

    /** Adds the private lavapipe found beside {@code library} ({@code <natives>/dawn/lib...}), if any. */
    static void prepareVulkan(Path library) {
        if (isSet("VK_ICD_FILENAMES") || isSet("VK_DRIVER_FILES") || isSet("VK_ADD_DRIVER_FILES")) {
            return;
        }
        Path dawnDir = library.toAbsolutePath().getParent();
        Path natives = dawnDir == null ? null : dawnDir.getParent();
        if (natives == null) {
            return;
        }
        Path icd = natives.resolve("lavapipe/lvp_icd.json");
        if (!Files.isRegularFile(icd)) {
            return;
        }
        Path libDir = natives.resolve("lavapipe/root/usr/lib/x86_64-linux-gnu");
        for (String name : new String[] {"libdrm.so.2", "libdrm_amdgpu.so.1"}) {
            Path lib = libDir.resolve(name);
            if (Files.isRegularFile(lib)) {
                try {
                    SymbolLookup.libraryLookup(lib, Arena.global());
                } catch (IllegalArgumentException e) {
                    LOG.debug("could not preload {}: {}", lib, e.getMessage());
                }
            }
        }
        if (setenv("VK_ADD_DRIVER_FILES", icd.toString())) {
            LOG.debug("added the private lavapipe {} to the Vulkan drivers", icd);
        }
    }

    /** Makes Mesa's EGL use its surfaceless platform when nothing says otherwise. */
    static void prepareHeadlessEgl() {
        if (isSet("EGL_PLATFORM") || isSet("DISPLAY") || isSet("WAYLAND_DISPLAY")) {
            return;
        }
        if (setenv("EGL_PLATFORM", "surfaceless")) {
            LOG.debug("EGL_PLATFORM=surfaceless for the headless OpenGL ES fallback");
        }
    }

    private static boolean isSet(String name) {
        String value = System.getenv(name);
        return value != null && !value.isEmpty();
    }

    private static boolean setenv(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment symbol =
                    NativeLibrary.linker().defaultLookup().find("setenv").orElse(null);
            if (symbol == null) {
                return false;
            }
            MethodHandle setenv = NativeLibrary.linker()
                    .downcallHandle(symbol, FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
            int rc = (int) setenv.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 0);
            return rc == 0;
        } catch (Throwable t) {
            LOG.debug("setenv {} failed: {}", name, t.toString());
            return false;
        }
    }
}
