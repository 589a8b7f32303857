package dev.graphrt.backend.cuda;

import dev.graphrt.driver.NativeRangeMarkers;
import dev.graphrt.driver.PhaseMarkers;
import dev.graphrt.spi.BackendConfig;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * NVTX ranges for the cuda backend's phases (prepare, capture, replay, synchronize; see {@link PhaseMarkers}),
 * through {@code nvtxRangeStartA}/{@code nvtxRangeEnd} of {@code libnvtx3interop} (CUDA 13) or {@code libnvToolsExt}
 * (CUDA 12 and before), so an Nsight Systems timeline
 * shows GraphRT's phases over the kernels.
 *
 * <p>The option {@value #OPTION}: {@code auto} (the default) marks only when a tool listens, which NVTX tells by
 * the environment variable {@value #INJECTION} that profilers set; otherwise nothing is loaded and a replay pays
 * nothing. {@code on} marks whenever the library loads, {@code off} never; any other value is the library's path.
 * Without the library every range is a no-op.
 */
final class CudaNvtx {
    /** Backend option: {@code auto}, {@code on}, {@code off}, or the path of the NVTX library. */
    static final String OPTION = "cuda.nvtx";
    /** The variable through which a profiler attaches to NVTX. */
    static final String INJECTION = "NVTX_INJECTION64_PATH";
    /**
     * CUDA 13's {@code libnvtx3interop} (NVTX 3's C API as a library, for languages that cannot include its
     * headers), then the {@code libnvToolsExt} of CUDA 12 and before; each by name, then in the toolkit.
     */
    static final List<String> LIBRARIES = List.of(
            "libnvtx3interop.so.1",
            "/usr/local/cuda/lib64/libnvtx3interop.so.1",
            "libnvToolsExt.so.1",
            "/usr/local/cuda/lib64/libnvToolsExt.so.1");

    private CudaNvtx() {}

    /** The markers {@code config} asks for, with {@code environment} read for {@value #INJECTION}. */
    static PhaseMarkers markers(BackendConfig config, UnaryOperator<String> environment) {
        String option = config.option(OPTION, "auto").strip();
        List<String> libraries = switch (option) {
            case "off" -> List.of();
            case "on" -> LIBRARIES;
            case "auto", "" -> environment.apply(INJECTION) != null ? LIBRARIES : List.of();
            default -> List.of(option);
        };
        return libraries.isEmpty()
                ? PhaseMarkers.NONE
                : NativeRangeMarkers.load(libraries, "nvtxRangeStartA", "nvtxRangeEnd");
    }
}
