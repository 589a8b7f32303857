package dev.graphrt.core;

import com.google.inject.Guice;
import com.google.inject.Module;
import dev.graphrt.api.AvailableDevice;
import dev.graphrt.api.GraphRuntime;
import dev.graphrt.api.RuntimeOptions;
import dev.graphrt.core.discovery.RuntimeFactory;
import java.util.List;

/**
 * The front door: {@code try (GraphRuntime rt = GraphRT.open()) { ... }} opens the best available backend
 * (or the one forced by {@code -Dgraphrt.backend} / {@code GRAPHRT_BACKEND}), and fails with every
 * provider's probe result when none can be opened. Applications that use Guice pass their own modules.
 */
public final class GraphRT {
    private static final String GUICE_CLASS_GENERATION = "guice_bytecode_gen_option";

    private GraphRT() {}

    public static GraphRuntime open() {
        return open(RuntimeOptions.defaults());
    }

    public static GraphRuntime open(RuntimeOptions options) {
        return open(new GraphRTModule(options));
    }

    /** Opens a runtime from an injector built of {@code modules} (which must include a {@link GraphRTModule}). */
    public static GraphRuntime open(Module... modules) {
        return factory(modules).open();
    }

    /**
     * Every device this machine can open, best backend first, then by ordinal: backend, ordinal, name, memory and
     * capabilities, each read by opening the device once (so it costs a context per device; not for a hot path).
     * {@code GraphRT.open(devices().get(i).options())} opens one. Backend options (library paths) come from the
     * defaults; see {@link #devices(RuntimeOptions)}.
     */
    public static List<AvailableDevice> devices() {
        return devices(RuntimeOptions.defaults());
    }

    /** {@link #devices()} with {@code options}' backend options (library paths and the like) for probe and open. */
    public static List<AvailableDevice> devices(RuntimeOptions options) {
        return factory(new GraphRTModule(options)).devices();
    }

    /** Every provider's probe result, one line each, without opening anything. */
    public static List<String> describeProviders() {
        return factory(new GraphRTModule()).describeProviders();
    }

    private static RuntimeFactory factory(Module... modules) {
        if (System.getProperty(GUICE_CLASS_GENERATION) == null) {
            // Guice's class generation calls sun.misc.Unsafe, which JDK 25 warns about; GraphRT needs no AOP.
            System.setProperty(GUICE_CLASS_GENERATION, "DISABLED");
        }
        return Guice.createInjector(modules).getInstance(RuntimeFactory.class);
    }
}
