package dev.graphrt.backend.hip;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.Capability;
import dev.graphrt.driver.CollectiveLibrary;
import dev.graphrt.driver.DriverBackend;
import dev.graphrt.driver.DriverDeviceMemory;
import dev.graphrt.driver.DriverKernelCompiler;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.KernelImageCache;
import dev.graphrt.spi.BackendConfig;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the HIP backend on one device: raw device memory, the hiprtc compiler and non-blocking streams whose
 * captures become hardware graphs, put together as the shared {@link DriverBackend}. The same contract as the
 * cuda backend, over {@code libamdhip64}. Its streams' capture support is driver capture (hardware graphs): stream
 * capture, {@code hipGraphInstantiateWithFlags} (flags 0), {@code hipGraphLaunch}; the graph is uploaded with
 * {@code hipGraphUpload} only where the runtime has it (ROCm 5.3+; not Debian's 5.2, where the first replay uploads
 * it; {@link DeviceInfo#driver()} says so).
 *
 * <p>Capabilities, each because the runtime really does it:
 * <ul>
 *   <li>{@link Capability#CAPTURE_MODE_RELAXED}: passed to {@code hipStreamBeginCapture} as it is, like the base
 *       contract's GLOBAL and THREAD_LOCAL (HIP numbers the modes as CUDA does);</li>
 *   <li>{@link Capability#RECORDS_WRITES}: a write while capturing is recorded as a memcpy node from a pinned
 *       copy that the graph owns and frees when it is destroyed, exactly as in the cuda backend (the same
 *       {@code dev.graphrt.driver} code);</li>
 *   <li>{@link Capability#DOT_EXPORT}: only when the runtime exports {@code hipGraphDebugDotPrint} (ROCm 5.5+);</li>
 *   <li>{@link Capability#GRAPH_UPDATE}: {@code hipGraphExecUpdate} for an update, {@code
 *       hipGraphExecKernelNodeSetParams} for a rebind, where the runtime exports both (ROCm 5.2 does);</li>
 *   <li>{@link Capability#NESTED_GRAPHS}: a replay inside a capture becomes a child-graph node
 *       ({@code hipStreamGetCaptureInfo_v2}, {@code hipGraphAddChildGraphNode},
 *       {@code hipStreamUpdateCaptureDependencies}), where the runtime exports them (ROCm 5.2 does).</li>
 * </ul>
 * Sticky errors become {@code DeviceLostException}, and a backend closing on a device that reports one calls
 * {@code hipDeviceReset}; {@code DEVICE_LOSS_RECOVERY} is not declared because over CUDA (the only HIP device
 * here) the process cannot recover from a trap, and AMD hardware was not measured.
 * {@code MULTI_STREAM_CAPTURE} as for cuda ({@code hipEventRecord}, {@code hipStreamWaitEvent}). Not declared, as for
 * cuda: {@code MID_CAPTURE_ALLOCATION}.
 */
final class HipBackend {
    private static final Logger LOG = LoggerFactory.getLogger(HipBackend.class);

    private HipBackend() {}

    /** RCCL, NCCL's API for AMD GPUs: the option {@value}'s path (or {@code off}), {@link #RCCL_ENV}, the usual paths. */
    static final String RCCL_OPTION = "hip.rccl";

    static final String RCCL_ENV = "GRAPHRT_RCCL_LIB";
    static final List<String> RCCL_LIBRARIES = List.of("librccl.so.1", "/opt/rocm/lib/librccl.so.1");

    /**
     * What this backend declares, given whether the runtime can dump graphs as DOT and update them, and whether RCCL
     * loaded ({@code COLLECTIVES}: RCCL's calls on the rank's stream, which a stream capture records).
     */
    static Set<Capability> capabilities(
            boolean dotExport, boolean graphUpdate, boolean nestedGraphs, boolean collectives) {
        EnumSet<Capability> set =
                EnumSet.of(Capability.RECORDS_WRITES, Capability.CAPTURE_MODE_RELAXED, Capability.MULTI_STREAM_CAPTURE);
        if (dotExport) {
            set.add(Capability.DOT_EXPORT);
        }
        if (graphUpdate) {
            set.add(Capability.GRAPH_UPDATE);
        }
        if (nestedGraphs) {
            set.add(Capability.NESTED_GRAPHS);
        }
        if (collectives) {
            set.add(Capability.COLLECTIVES);
        }
        return Collections.unmodifiableSet(set);
    }

    /** Initialises the runtime and makes {@code config.deviceIndex()} current. */
    static DriverBackend open(BackendConfig config) {
        HipLibrary.Loaded loaded = HipLibrary.load(config);
        if (loaded.failure() != null) {
            throw new BackendUnavailableException(
                    "the hip backend cannot open", List.of("hip: unavailable: " + loaded.failure()));
        }
        int rc = HipRuntime.tryInit();
        HipRuntime.DeviceCount count = HipRuntime.tryDeviceCount();
        if (count.result() != HardwareGraphErrors.SUCCESS) {
            throw HipRuntime.ERRORS.toException("hipGetDeviceCount", count.result());
        }
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw HipRuntime.ERRORS.toException("hipInit", rc);
        }
        if (config.deviceIndex() >= count.count()) {
            throw new IllegalArgumentException("deviceIndex " + config.deviceIndex()
                    + " does not exist: this machine has " + count.count() + " HIP device(s)");
        }
        HipDevice device = new HipDevice(config.deviceIndex());
        device.makeCurrent();
        HipDeviceDescription description = HipDeviceDescription.query(config.deviceIndex());
        HipGraphs graphs = new HipGraphs(new HipGraphNodeTypes(description.runtimeVersion()));
        HipStream streams = new HipStream(device, graphs);
        CollectiveLibrary.Located rccl = CollectiveLibrary.configured(
                "RCCL", config, RCCL_OPTION, RCCL_ENV, System::getenv, () -> RCCL_LIBRARIES);
        if (rccl.library().isEmpty()) {
            LOG.debug("hip: COLLECTIVES not declared: {}", rccl.failure());
        }
        DriverBackend backend = new DriverBackend(new DriverBackend.Parts(
                config.deviceIndex(),
                description.toDeviceInfo(),
                capabilities(
                        HipRuntime.hasGraphDebugDotPrint(),
                        graphs.updates(),
                        graphs.nestsGraphs(),
                        rccl.library().isPresent()),
                streams,
                new DriverDeviceMemory(streams, new HipDeviceMemory()),
                new DriverKernelCompiler(
                        streams,
                        new HipKernelCompiler(new HiprtcLocator(config), description.summary()),
                        KernelImageCache.configured(config, "hip")),
                () -> HipRuntime.resetIfLost(device),
                rccl.library()));
        LOG.debug(
                "hip: opened device {} from {}: {} (hipGraphUpload {}, hipGraphDebugDotPrint {})",
                config.deviceIndex(),
                HipLibrary.origin(),
                description.summary(),
                HipRuntime.hasGraphUpload() ? "present" : "absent",
                HipRuntime.hasGraphDebugDotPrint() ? "present" : "absent");
        return backend;
    }
}
