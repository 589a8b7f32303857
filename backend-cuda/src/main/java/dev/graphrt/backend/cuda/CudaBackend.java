package dev.graphrt.backend.cuda;

import dev.graphrt.api.BackendUnavailableException;
import dev.graphrt.api.Capability;
import dev.graphrt.driver.CollectiveLibrary;
import dev.graphrt.driver.DriverBackend;
import dev.graphrt.driver.DriverDeviceMemory;
import dev.graphrt.driver.DriverKernelCompiler;
import dev.graphrt.driver.HardwareGraphErrors;
import dev.graphrt.driver.KernelImageCache;
import dev.graphrt.driver.KernelToolchain;
import dev.graphrt.spi.BackendConfig;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the CUDA backend on one device: its retained primary context, raw device memory, the NVRTC compiler
 * and non-blocking streams whose captures become hardware graphs, put together as the shared
 * {@link DriverBackend}. Its streams' capture support is driver capture (hardware graphs): stream capture,
 * {@code cuGraphInstantiateWithFlags}, {@code cuGraphLaunch}.
 *
 * <p>Capabilities, each because the driver really does it:
 * <ul>
 *   <li>{@link Capability#CAPTURE_MODE_RELAXED}: passed to {@code cuStreamBeginCapture_v2} as it is, like the
 *       base contract's GLOBAL and THREAD_LOCAL;</li>
 *   <li>{@link Capability#COLLECTIVES}: NCCL's calls on the rank's stream, which a stream capture records, where
 *       NCCL loads ({@link CudaNccl}: the option {@code cuda.nccl}, {@code GRAPHRT_NCCL_LIB}, {@code libnccl.so.2}, the
 *       Python wheel's copy);</li>
 *   <li>{@link Capability#DOT_EXPORT}: {@code cuGraphDebugDotPrint} of the graph's template, made when asked for;</li>
 *   <li>{@link Capability#GRAPH_UPDATE}: {@code cuGraphExecUpdate_v2} applies an update's capture to the live
 *       executable graph, {@code cuGraphExecKernelNodeSetParams_v2} a rebind (both affect later launches only);
 *       declared where the driver exports both (CUDA 12.0+);</li>
 *   <li>{@link Capability#MULTI_STREAM_CAPTURE}: an event recorded into a capture ({@code cuEventRecord} on the
 *       capturing stream) and another stream's {@code cuStreamWaitEvent} on it join that stream to the capture, as
 *       the driver defines; the core refuses an unjoined end before the driver's 904;</li>
 *   <li>{@link Capability#NESTED_GRAPHS}: a replay inside a capture becomes a child-graph node
 *       ({@code cuStreamGetCaptureInfo_v3}, {@code cuGraphAddChildGraphNode},
 *       {@code cuStreamUpdateCaptureDependencies_v2}; CUDA 12.3+), since {@code cuGraphLaunch} into a capture
 *       is refused (900);</li>
 *   <li>{@link Capability#PROGRAMMATIC_DEPENDENT_LAUNCH}: on compute capability 9.0 and up, an opted-in kernel is
 *       launched with {@code cuLaunchKernelEx} and programmatic stream serialization, and its text gets
 *       {@code griddepcontrol.wait} and {@code griddepcontrol.launch_dependents}; in a capture the driver records
 *       programmatic edges;</li>
 *   <li>{@link Capability#RECORDS_WRITES}: a write while capturing is recorded as a memcpy node from a pinned
 *       copy that the graph owns and frees when it is destroyed (or at once when the capture aborts);</li>
 * </ul>
 * Not declared: {@code MID_CAPTURE_ALLOCATION} ({@code cuMemAlloc_v2} invalidates GLOBAL and THREAD_LOCAL
 * captures), {@code DEVICE_LOSS_RECOVERY}: a sticky
 * error (700-class) becomes {@code DeviceLostException} and loses the runtime, but measured on the H200 (driver
 * 580) the process cannot recover from it: after a trap, resetting the primary context and retaining it again,
 * or creating a new context, both return 719 ({@code examples/src/main/native/sticky_recovery.cu}).
 */
final class CudaBackend {
    private static final Logger LOG = LoggerFactory.getLogger(CudaBackend.class);
    /**
     * What this backend declares, given whether the driver has the graph update and the nesting calls, whether the
     * device launches dependents, and whether NCCL loaded.
     */
    static Set<Capability> capabilities(
            boolean graphUpdate, boolean nestedGraphs, boolean dependentLaunches, boolean collectives) {
        EnumSet<Capability> set = EnumSet.of(
                Capability.RECORDS_WRITES,
                Capability.CAPTURE_MODE_RELAXED,
                Capability.DOT_EXPORT,
                Capability.MULTI_STREAM_CAPTURE);
        if (graphUpdate) {
            set.add(Capability.GRAPH_UPDATE);
        }
        if (nestedGraphs) {
            set.add(Capability.NESTED_GRAPHS);
        }
        if (dependentLaunches) {
            set.add(Capability.PROGRAMMATIC_DEPENDENT_LAUNCH);
        }
        if (collectives) {
            set.add(Capability.COLLECTIVES);
        }
        return Collections.unmodifiableSet(set);
    }

    private CudaBackend() {}

    /**
     * Whether opted-in kernels are launched as programmatic dependents on {@code device}: compute capability 9.0 or
     * more (Hopper's {@code griddepcontrol}) and a driver with {@code cuLaunchKernelEx}.
     */
    static boolean launchesDependents(CudaDeviceDescription device) {
        return device.computeCapability() >= CudaNative.PROGRAMMATIC_LAUNCH_COMPUTE_CAPABILITY
                && CudaStream.launchesDependents();
    }

    /** Initialises the driver and retains the primary context of {@code config.deviceIndex()}. */
    static DriverBackend open(BackendConfig config) {
        return open(config, UnaryOperator.identity());
    }

    /**
     * As {@link #open(BackendConfig)}, with the kernel toolchain passed through {@code toolchain} first: the seam
     * through which the teeth tests build a cuda backend with one deliberate defect.
     */
    static DriverBackend open(BackendConfig config, UnaryOperator<KernelToolchain> toolchain) {
        String failure = CudaLibrary.failure().orElse(null);
        if (failure != null) {
            throw new BackendUnavailableException(
                    "the cuda backend cannot open", List.of("cuda: unavailable: " + failure));
        }
        int rc = CudaDriver.tryInit();
        if (rc != HardwareGraphErrors.SUCCESS) {
            throw CudaDriver.ERRORS.toException("cuInit", rc);
        }
        int count = CudaDriver.deviceCount();
        if (config.deviceIndex() >= count) {
            throw new IllegalArgumentException("deviceIndex " + config.deviceIndex()
                    + " does not exist: this machine has " + count + " CUDA device(s)");
        }
        CudaDeviceDescription description = CudaDeviceDescription.query(config.deviceIndex());
        CudaContext context = CudaContext.retainPrimary(config.deviceIndex());
        CudaStream streams = new CudaStream(context, CudaNvtx.markers(config, System::getenv));
        CollectiveLibrary.Located nccl = CudaNccl.locate(config, System::getenv);
        if (nccl.library().isEmpty()) {
            LOG.debug("cuda: COLLECTIVES not declared: {}", nccl.failure());
        }
        DriverBackend backend = new DriverBackend(new DriverBackend.Parts(
                config.deviceIndex(),
                description.toDeviceInfo(),
                capabilities(
                        streams.graphs().updates(),
                        streams.graphs().nestsGraphs(),
                        launchesDependents(description),
                        nccl.library().isPresent()),
                streams,
                new DriverDeviceMemory(streams, new CudaDeviceMemory()),
                new DriverKernelCompiler(
                        streams,
                        toolchain.apply(new CudaKernelCompiler(
                                description, new NvrtcLocator(config), launchesDependents(description))),
                        KernelImageCache.configured(config, "cuda")),
                context::release,
                nccl.library()));
        LOG.debug("cuda: opened device {}: {}", config.deviceIndex(), description.summary());
        return backend;
    }
}
