package dev.graphrt.backend.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.driver.DeviceQueries;
import dev.graphrt.driver.NativeSymbol;
import dev.graphrt.driver.ResultCodeNames;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.Map;

/**
 * Everything this backend knows about {@code libamdhip64}'s binary interface, in one place: the constants of
 * {@code hip_runtime_api.h} it uses, the exported symbols with their C signatures, and the names of the
 * result codes for when {@code hipGetErrorName} cannot answer.
 *
 * <p>Each signature below was checked against Debian's {@code hip_runtime_api.h} (ROCm 5.2.3,
 * {@code libamdhip64-dev}) and, for the two symbols 5.2 lacks, against ROCm 6.2's; a wrong one corrupts the
 * JVM, so change them only against the header. Handles ({@code hipStream_t}, {@code hipGraph_t}, ...) and
 * {@code hipDeviceptr_t} ({@code void*}) are {@code ADDRESS}; {@code size_t} and {@code unsigned long long}
 * are {@code JAVA_LONG}; device ordinals, enums, {@code int} and {@code unsigned int} are {@code JAVA_INT}.
 * Every function here except {@code hipGetErrorName} returns {@code hipError_t} ({@code JAVA_INT}).
 *
 * <p>Where HIP is not CUDA: there is no context (the calling thread's current device, {@code hipSetDevice},
 * plays its part); device pointers are {@code void*}; device attributes have HIP's own numbers; graph node
 * types were renumbered in ROCm 5.3 (see {@link #NODE_TYPES_ZERO_BASED_SINCE}); {@code hipGraphUpload} (5.3)
 * and {@code hipGraphDebugDotPrint} (5.5) are optional.
 */
final class HipNative {
    private HipNative() {}

    // ---- what only HIP has (the values CUDA shares are DriverConstants', HardwareGraphErrors', DriverCaptureModes')
    // ---
    static final int HIP_ERROR_INVALID_DEVICE_FUNCTION = 98;
    static final int HIP_ERROR_NO_DEVICE = 100;

    /** {@code hipHostMallocDefault}. */
    static final int HIP_HOST_MALLOC_DEFAULT = 0x0;
    /** {@code hipDeviceAttribute_t} (the same numbers in ROCm 5.2 and 6.2). */
    static final int HIP_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 23;

    static final int HIP_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 61;
    static final int HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 63;
    /**
     * {@code hipDeviceAttributeMaxGridDimX..Z} (29-31), {@code MaxBlockDimX..Z} (26-28) and
     * {@code MaxThreadsPerBlock} (56), as the ROCm 5.2 headers number them.
     */
    static final DeviceQueries.LimitAttributes HIP_LAUNCH_LIMIT_ATTRIBUTES =
            new DeviceQueries.LimitAttributes(29, 30, 31, 26, 27, 28, 56);

    // ---- hipGraphNodeType: renumbered in ROCm 5.3 --------------------------------------------------------
    /** {@code HIP_VERSION} (major * 10^7 + minor * 10^5 + patch) from which node types count from 0 like CUDA's. */
    static final int NODE_TYPES_ZERO_BASED_SINCE = 50_300_000;
    /** ROCm up to 5.2: {@code hipGraphNodeTypeKernel = 1} ... {@code hipGraphNodeTypeMemcpyToSymbol = 11}; no memory nodes. */
    static final int LEGACY_NODE_TYPE_FIRST = 1;

    static final int LEGACY_NODE_TYPE_COUNT = 12;

    /** {@code hipKernelNodeParams}: block dims, extra, the function, grid dims, the parameters, shared bytes. */
    static final StructLayout KERNEL_NODE_PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("blockDimX"),
            JAVA_INT.withName("blockDimY"),
            JAVA_INT.withName("blockDimZ"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("extra"),
            ADDRESS.withName("func"),
            JAVA_INT.withName("gridDimX"),
            JAVA_INT.withName("gridDimY"),
            JAVA_INT.withName("gridDimZ"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("kernelParams"),
            JAVA_INT.withName("sharedMemBytes"),
            MemoryLayout.paddingLayout(4));

    /**
     * The functions this backend binds, named exactly as {@code libamdhip64} exports them. The enum constant's
     * name is the symbol; {@code required} ones must all be present for the probe to succeed.
     */
    enum Symbol implements NativeSymbol {
        hipInit(true, JAVA_INT), // (unsigned int flags)
        hipDriverGetVersion(true, ADDRESS), // (int*)
        hipRuntimeGetVersion(true, ADDRESS), // (int*)
        hipGetErrorName(true, FunctionDescriptor.of(ADDRESS, JAVA_INT)), // const char* (hipError_t)
        hipGetDeviceCount(true, ADDRESS), // (int*)
        hipSetDevice(true, JAVA_INT), // (int deviceId)
        hipDeviceGetName(true, ADDRESS, JAVA_INT, JAVA_INT), // (char*, int len, hipDevice_t)
        hipDeviceTotalMem(true, ADDRESS, JAVA_INT), // (size_t*, hipDevice_t)
        hipDeviceGetAttribute(true, ADDRESS, JAVA_INT, JAVA_INT), // (int*, hipDeviceAttribute_t, int deviceId)
        hipThreadExchangeStreamCaptureMode(true, ADDRESS), // (hipStreamCaptureMode*)
        hipDeviceSynchronize(true), // (void)
        hipDeviceReset(true), // (void)
        hipStreamCreateWithFlags(true, ADDRESS, JAVA_INT), // (hipStream_t*, unsigned int flags)
        hipStreamDestroy(true, ADDRESS), // (hipStream_t)
        hipStreamSynchronize(true, ADDRESS), // (hipStream_t)
        hipStreamQuery(true, ADDRESS), // (hipStream_t)
        hipMalloc(true, ADDRESS, JAVA_LONG), // (void** ptr, size_t)
        hipFree(true, ADDRESS), // (void*)
        hipHostMalloc(true, ADDRESS, JAVA_LONG, JAVA_INT), // (void** ptr, size_t, unsigned int flags)
        hipHostFree(true, ADDRESS), // (void*)
        hipMemcpyHtoD(true, ADDRESS, ADDRESS, JAVA_LONG), // (hipDeviceptr_t dst, void* src, size_t)
        hipMemcpyHtoDAsync(true, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), // (+ hipStream_t)
        hipMemcpyDtoHAsync(
                true, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), // (void* dst, hipDeviceptr_t src, size_t, hipStream_t)
        hipMemcpyDtoDAsync(
                true, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), // (hipDeviceptr_t dst, hipDeviceptr_t src, size_t,
        //  hipStream_t): unified addressing, peers too
        hipDeviceCanAccessPeer(true, ADDRESS, JAVA_INT, JAVA_INT), // (int*, int deviceId, int peerDeviceId)
        hipDeviceEnablePeerAccess(true, JAVA_INT, JAVA_INT), // (int peerDeviceId, unsigned int flags)
        hipModuleLoadData(true, ADDRESS, ADDRESS), // (hipModule_t*, const void* image)
        hipModuleGetFunction(true, ADDRESS, ADDRESS, ADDRESS), // (hipFunction_t*, hipModule_t, const char*)
        hipModuleUnload(true, ADDRESS), // (hipModule_t)
        hipModuleLaunchKernel(
                true, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, // (hipFunction_t, grid x y z,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, //  block x y z, sharedMemBytes,
                ADDRESS, ADDRESS, ADDRESS), //  hipStream_t, void** params, void** extra)
        hipEventCreateWithFlags(true, ADDRESS, JAVA_INT), // (hipEvent_t*, unsigned flags)
        hipEventRecord(true, ADDRESS, ADDRESS), // (hipEvent_t, hipStream_t)
        hipEventQuery(true, ADDRESS), // (hipEvent_t)
        hipEventSynchronize(true, ADDRESS), // (hipEvent_t)
        hipEventDestroy(true, ADDRESS), // (hipEvent_t)
        hipStreamWaitEvent(true, ADDRESS, ADDRESS, JAVA_INT), // (hipStream_t, hipEvent_t, unsigned int flags)
        hipStreamBeginCapture(true, ADDRESS, JAVA_INT), // (hipStream_t, hipStreamCaptureMode)
        hipStreamEndCapture(true, ADDRESS, ADDRESS), // (hipStream_t, hipGraph_t*)
        hipStreamIsCapturing(true, ADDRESS, ADDRESS), // (hipStream_t, hipStreamCaptureStatus*)
        hipGraphGetNodes(true, ADDRESS, ADDRESS, ADDRESS), // (hipGraph_t, hipGraphNode_t*, size_t*)
        hipGraphNodeGetType(true, ADDRESS, ADDRESS), // (hipGraphNode_t, hipGraphNodeType*)
        hipGraphInstantiateWithFlags(true, ADDRESS, ADDRESS, JAVA_LONG), // (hipGraphExec_t*, hipGraph_t,
        //  unsigned long long flags)
        hipGraphUpload(false, ADDRESS, ADDRESS), // (hipGraphExec_t, hipStream_t); ROCm 5.3+
        hipGraphLaunch(true, ADDRESS, ADDRESS), // (hipGraphExec_t, hipStream_t)
        hipGraphExecDestroy(true, ADDRESS), // (hipGraphExec_t)
        hipGraphDestroy(true, ADDRESS), // (hipGraph_t)
        hipGraphDebugDotPrint(false, ADDRESS, ADDRESS, JAVA_INT), // (hipGraph_t, const char* path,
        //  unsigned int flags); ROCm 5.5+
        hipGraphExecUpdate(false, ADDRESS, ADDRESS, ADDRESS, ADDRESS), // (hipGraphExec_t, hipGraph_t,
        //  hipGraphNode_t* errorNode_out,
        //  hipGraphExecUpdateResult* result_out)
        hipGraphExecKernelNodeSetParams(false, ADDRESS, ADDRESS, ADDRESS), // (hipGraphExec_t, hipGraphNode_t,
        //  const hipKernelNodeParams*)
        hipGraphAddChildGraphNode(false, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), // (hipGraphNode_t*,
        //  hipGraph_t, const hipGraphNode_t*, size_t,
        //  hipGraph_t child)
        hipStreamGetCaptureInfo_v2(false, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS), // (hipStream_t,
        //  status*, unsigned long long* id, hipGraph_t*,
        //  const hipGraphNode_t**, size_t*)
        hipStreamUpdateCaptureDependencies(false, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT); // (hipStream_t,
        //  hipGraphNode_t*, size_t, unsigned int flags)

        final NativeSymbol.Signature signature;

        Symbol(boolean required, MemoryLayout... arguments) {
            this.signature = NativeSymbol.Signature.of(required, arguments);
        }

        Symbol(boolean required, FunctionDescriptor descriptor) {
            this.signature = new NativeSymbol.Signature(required, descriptor);
        }

        @Override
        public NativeSymbol.Signature signature() {
            return signature;
        }
    }

    /** Names of the result codes, for when {@code hipGetErrorName} is unavailable (the shared table's HIP column). */
    static final Map<Integer, String> RESULT_NAMES = ResultCodeNames.HIP;

    /** Prefix of the name of a code missing from {@link #RESULT_NAMES}: {@code hipError_t(1234)}. */
    static final String UNKNOWN_RESULT_PREFIX = "hipError_t";

    /** "5.2.21153" for {@code HIP_VERSION} 50221153. */
    static String versionText(int hipVersion) {
        return hipVersion / 10_000_000 + "." + (hipVersion / 100_000) % 100 + "." + hipVersion % 100_000;
    }
}
