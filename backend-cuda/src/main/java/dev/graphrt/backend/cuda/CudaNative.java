package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.driver.DeviceQueries;
import dev.graphrt.driver.NativeSymbol;
import dev.graphrt.driver.ResultCodeNames;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.Map;

/**
 * Everything this backend knows about {@code libcuda.so.1}'s binary interface, in one place: the
 * constants of {@code cuda.h} it uses, the exported symbols with their C signatures, and the names of the
 * result codes for when {@code cuGetErrorName} cannot answer.
 *
 * <p>Symbols are the <em>exported, versioned</em> names ({@code cuMemAlloc_v2}, {@code cuStreamBeginCapture_v2},
 * {@code cuGraphInstantiateWithFlags}): {@code cuda.h} {@code #define}s the API names to them, and the plain
 * exports are older ABIs kept for binary compatibility. Each signature below was checked against the CUDA
 * 13.0 {@code cuda.h}; a wrong one corrupts the JVM, so change them only against that header.
 * Handles ({@code CUcontext}, {@code CUstream}, ...) are pointers ({@code ADDRESS}); {@code CUdeviceptr} and
 * {@code size_t} are 64-bit ({@code JAVA_LONG}); {@code CUdevice}, enums and {@code unsigned int} are
 * {@code JAVA_INT}. Every function returns {@code CUresult} ({@code JAVA_INT}).
 */
final class CudaNative {
    private CudaNative() {}

    // ---- what only CUDA has (the values HIP shares are DriverConstants', HardwareGraphErrors', DriverCaptureModes')
    // --
    /** {@code CUdevice_attribute}. */
    static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

    static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
    /** {@code CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X..Z} (5-7), {@code MAX_BLOCK_DIM_X..Z} (2-4), {@code MAX_THREADS_PER_BLOCK}. */
    static final DeviceQueries.LimitAttributes CU_LAUNCH_LIMIT_ATTRIBUTES =
            new DeviceQueries.LimitAttributes(5, 6, 7, 2, 3, 4, 1);
    /** The compute capability (as {@code major * 10 + minor}) from which the device has programmatic dependent launch. */
    static final int PROGRAMMATIC_LAUNCH_COMPUTE_CAPABILITY = 90;
    /** {@code CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION} of {@code CUlaunchAttributeID}. */
    static final int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
    /**
     * {@code CUlaunchAttribute}: the id, padding to 8 bytes, then the 64-byte {@code CUlaunchAttributeValue} union,
     * whose {@code programmaticStreamSerializationAllowed} is its first {@code int}.
     */
    static final StructLayout LAUNCH_ATTRIBUTE = MemoryLayout.structLayout(
            JAVA_INT.withName("id"),
            MemoryLayout.paddingLayout(4),
            JAVA_INT.withName("value"),
            MemoryLayout.paddingLayout(60));
    /** {@code CUlaunchConfig} of {@code cuLaunchKernelEx}. */
    static final StructLayout LAUNCH_CONFIG = MemoryLayout.structLayout(
            JAVA_INT.withName("gridDimX"),
            JAVA_INT.withName("gridDimY"),
            JAVA_INT.withName("gridDimZ"),
            JAVA_INT.withName("blockDimX"),
            JAVA_INT.withName("blockDimY"),
            JAVA_INT.withName("blockDimZ"),
            JAVA_INT.withName("sharedMemBytes"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("hStream"),
            ADDRESS.withName("attrs"),
            JAVA_INT.withName("numAttrs"),
            MemoryLayout.paddingLayout(4));
    /** {@code CUjit_option}: error log buffer (char*) and its size (unsigned int, in: capacity, out: used). */
    static final int CU_JIT_ERROR_LOG_BUFFER = 5;

    static final int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

    /** {@code CUgraphExecUpdateResultInfo}: the update result, the node it names, the mismatched dependency. */
    static final StructLayout GRAPH_EXEC_UPDATE_RESULT_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("result"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("errorNode"),
            ADDRESS.withName("errorFromNode"));
    /** {@code CUDA_KERNEL_NODE_PARAMS} ({@code _v2}): the function (or the library kernel) and its launch. */
    static final StructLayout KERNEL_NODE_PARAMS = MemoryLayout.structLayout(
            ADDRESS.withName("func"),
            JAVA_INT.withName("gridDimX"),
            JAVA_INT.withName("gridDimY"),
            JAVA_INT.withName("gridDimZ"),
            JAVA_INT.withName("blockDimX"),
            JAVA_INT.withName("blockDimY"),
            JAVA_INT.withName("blockDimZ"),
            JAVA_INT.withName("sharedMemBytes"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("kernelParams"),
            ADDRESS.withName("extra"),
            ADDRESS.withName("kern"),
            ADDRESS.withName("ctx"));

    /**
     * The functions this backend binds, named exactly as {@code libcuda.so.1} exports them. The enum
     * constant's name is the symbol; {@code required} ones must all be present for the probe to succeed.
     */
    enum Symbol implements NativeSymbol {
        cuInit(true, JAVA_INT), // (unsigned int Flags)
        cuDriverGetVersion(true, ADDRESS), // (int*)
        cuGetErrorName(true, JAVA_INT, ADDRESS), // (CUresult, const char**)
        cuDeviceGetCount(true, ADDRESS), // (int*)
        cuDeviceGet(true, ADDRESS, JAVA_INT), // (CUdevice*, int ordinal)
        cuDeviceGetName(true, ADDRESS, JAVA_INT, JAVA_INT), // (char*, int len, CUdevice)
        cuDeviceTotalMem_v2(true, ADDRESS, JAVA_INT), // (size_t*, CUdevice)
        cuDeviceGetAttribute(true, ADDRESS, JAVA_INT, JAVA_INT), // (int*, CUdevice_attribute, CUdevice)
        cuDevicePrimaryCtxRetain(true, ADDRESS, JAVA_INT), // (CUcontext*, CUdevice)
        cuDevicePrimaryCtxRelease_v2(true, JAVA_INT), // (CUdevice)
        cuDevicePrimaryCtxReset_v2(true, JAVA_INT), // (CUdevice)
        cuCtxSynchronize(true), // (void)
        cuCtxSetCurrent(true, ADDRESS), // (CUcontext)
        cuCtxGetCurrent(NativeSymbol.Signature.leaf(true, ADDRESS)), // (CUcontext*): a read of the thread's state
        cuThreadExchangeStreamCaptureMode(true, ADDRESS), // (CUstreamCaptureMode*)
        cuStreamCreate(true, ADDRESS, JAVA_INT), // (CUstream*, unsigned int Flags)
        cuStreamDestroy_v2(true, ADDRESS), // (CUstream)
        cuStreamSynchronize(true, ADDRESS), // (CUstream)
        cuStreamQuery(true, ADDRESS), // (CUstream)
        cuMemAlloc_v2(true, ADDRESS, JAVA_LONG), // (CUdeviceptr*, size_t)
        cuMemFree_v2(true, JAVA_LONG), // (CUdeviceptr)
        cuMemAllocHost_v2(true, ADDRESS, JAVA_LONG), // (void**, size_t)
        cuMemFreeHost(true, ADDRESS), // (void*)
        cuMemcpyHtoD_v2(true, JAVA_LONG, ADDRESS, JAVA_LONG), // (CUdeviceptr dst, const void* src, size_t)
        cuMemcpyHtoDAsync_v2(true, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS), // (+ CUstream)
        cuMemcpyDtoHAsync_v2(
                true, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), // (void* dst, CUdeviceptr src, size_t, CUstream)
        cuMemcpyAsync(true, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS), // (CUdeviceptr dst, CUdeviceptr src, size_t,
        //  CUstream): unified addressing, peers too
        cuDeviceCanAccessPeer(true, ADDRESS, JAVA_INT, JAVA_INT), // (int*, CUdevice dev, CUdevice peerDev)
        cuCtxEnablePeerAccess(true, ADDRESS, JAVA_INT), // (CUcontext peer, unsigned int Flags)
        cuModuleLoadDataEx(true, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS), // (CUmodule*, const void* image,
        //  unsigned int n, CUjit_option*, void**)
        cuModuleGetFunction(true, ADDRESS, ADDRESS, ADDRESS), // (CUfunction*, CUmodule, const char*)
        cuModuleUnload(true, ADDRESS), // (CUmodule)
        cuFuncGetParamInfo(false, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), // (CUfunction, size_t index,
        //  size_t* offset, size_t* size); CUDA 12.4+
        cuFuncLoad(false, ADDRESS), // (CUfunction); CUDA 12.4+
        cuLaunchKernel(
                true, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, // (CUfunction, grid x y z,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, //  block x y z, sharedMemBytes,
                ADDRESS, ADDRESS, ADDRESS), //  CUstream, void** params, void** extra)
        cuLaunchKernelEx(false, ADDRESS, ADDRESS, ADDRESS, ADDRESS), // (const CUlaunchConfig*, CUfunction,
        //  void** params, void** extra); CUDA 11.8+
        cuEventCreate(true, ADDRESS, JAVA_INT), // (CUevent*, unsigned int Flags)
        cuEventRecord(true, ADDRESS, ADDRESS), // (CUevent, CUstream)
        cuEventQuery(true, ADDRESS), // (CUevent)
        cuEventSynchronize(true, ADDRESS), // (CUevent)
        cuEventDestroy_v2(true, ADDRESS), // (CUevent)
        cuStreamWaitEvent(true, ADDRESS, ADDRESS, JAVA_INT), // (CUstream, CUevent, unsigned int Flags)
        cuStreamBeginCapture_v2(true, ADDRESS, JAVA_INT), // (CUstream, CUstreamCaptureMode)
        cuStreamEndCapture(true, ADDRESS, ADDRESS), // (CUstream, CUgraph*)
        cuStreamIsCapturing(true, ADDRESS, ADDRESS), // (CUstream, CUstreamCaptureStatus*)
        cuStreamGetCaptureInfo_v3(
                false, ADDRESS, ADDRESS, ADDRESS, // (CUstream, status*, cuuint64_t* id,
                ADDRESS, ADDRESS, ADDRESS, ADDRESS), //  CUgraph*, const CUgraphNode**,
        //  const CUgraphEdgeData**, size_t*); 12.3+
        cuStreamGetCaptureInfo_v2(
                false, ADDRESS, ADDRESS, ADDRESS, // (CUstream, status*, cuuint64_t* id,
                ADDRESS, ADDRESS, ADDRESS), //  CUgraph*, const CUgraphNode**, size_t*)
        cuGraphGetNodes(true, ADDRESS, ADDRESS, ADDRESS), // (CUgraph, CUgraphNode*, size_t*)
        cuGraphNodeGetType(true, ADDRESS, ADDRESS), // (CUgraphNode, CUgraphNodeType*)
        cuGraphInstantiateWithFlags(true, ADDRESS, ADDRESS, JAVA_LONG), // (CUgraphExec*, CUgraph,
        //  unsigned long long flags)
        cuGraphUpload(true, ADDRESS, ADDRESS), // (CUgraphExec, CUstream)
        cuGraphLaunch(true, ADDRESS, ADDRESS), // (CUgraphExec, CUstream)
        cuGraphExecDestroy(true, ADDRESS), // (CUgraphExec)
        cuGraphDestroy(true, ADDRESS), // (CUgraph)
        cuGraphDebugDotPrint(true, ADDRESS, ADDRESS, JAVA_INT), // (CUgraph, const char* path, unsigned int)
        cuGraphExecUpdate_v2(false, ADDRESS, ADDRESS, ADDRESS), // (CUgraphExec, CUgraph,
        //  CUgraphExecUpdateResultInfo*); CUDA 12.0+
        cuGraphExecKernelNodeSetParams_v2(false, ADDRESS, ADDRESS, ADDRESS), // (CUgraphExec, CUgraphNode,
        //  const CUDA_KERNEL_NODE_PARAMS*); 12.0+
        cuGraphAddChildGraphNode(false, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), // (CUgraphNode*, CUgraph,
        //  const CUgraphNode* deps, size_t, CUgraph child)
        cuStreamUpdateCaptureDependencies_v2(false, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT); // (CUstream,
        //  CUgraphNode*, const CUgraphEdgeData*, size_t,
        //  unsigned int flags); CUDA 12.3+

        final NativeSymbol.Signature signature;

        Symbol(boolean required, MemoryLayout... arguments) {
            this(NativeSymbol.Signature.of(required, arguments));
        }

        Symbol(NativeSymbol.Signature signature) {
            this.signature = signature;
        }

        @Override
        public NativeSymbol.Signature signature() {
            return signature;
        }
    }

    /** Names of the result codes, for when {@code cuGetErrorName} is unavailable (the shared table's CUDA column). */
    static final Map<Integer, String> RESULT_NAMES = ResultCodeNames.CUDA;

    /** Prefix of the name of a code missing from {@link #RESULT_NAMES}: {@code CUresult(1234)}. */
    static final String UNKNOWN_RESULT_PREFIX = "CUresult";
}
