package dev.graphrt.backend.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.graphrt.driver.NativeSymbol;
import java.lang.foreign.MemoryLayout;
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
    private CudaNative() {
    }

    // ---- CUresult ------------------------------------------------------------------------------------
    static final int CUDA_SUCCESS = 0;
    static final int CUDA_ERROR_INVALID_VALUE = 1;
    static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
    static final int CUDA_ERROR_NOT_FOUND = 500;
    static final int CUDA_ERROR_NOT_READY = 600;

    // ---- flags and enums -----------------------------------------------------------------------------
    /** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronisation with the legacy default stream. */
    static final int CU_STREAM_NON_BLOCKING = 0x1;
    /** {@code CU_EVENT_DISABLE_TIMING}: the cheapest event, for fences. */
    static final int CU_EVENT_DISABLE_TIMING = 0x2;
    /** {@code CUstreamCaptureMode}: RELAXED, used to exchange the thread's mode around host allocations. */
    static final int CU_STREAM_CAPTURE_MODE_RELAXED = 2;
    /** {@code CUstreamCaptureStatus}. */
    static final int CU_STREAM_CAPTURE_STATUS_NONE = 0;
    static final int CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;
    static final int CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2;
    /** {@code CUgraphNodeType} values that make a graph unsafe to relaunch. */
    static final int CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10;
    static final int CU_GRAPH_NODE_TYPE_MEM_FREE = 11;
    /** {@code CUgraphDebugDot_flags}: 0 = topology, node types, kernel names, memcpy direction. */
    static final int CU_GRAPH_DEBUG_DOT_FLAGS_DEFAULT = 0;
    /** {@code CUdevice_attribute}. */
    static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
    static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
    /** {@code CUjit_option}: error log buffer (char*) and its size (unsigned int, in: capacity, out: used). */
    static final int CU_JIT_ERROR_LOG_BUFFER = 5;
    static final int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

    /**
     * The functions this backend binds, named exactly as {@code libcuda.so.1} exports them. The enum
     * constant's name is the symbol; {@code required} ones must all be present for the probe to succeed.
     */
    enum Symbol implements NativeSymbol {
        cuInit(true, JAVA_INT),                                       // (unsigned int Flags)
        cuDriverGetVersion(true, ADDRESS),                            // (int*)
        cuGetErrorName(true, JAVA_INT, ADDRESS),                      // (CUresult, const char**)
        cuDeviceGetCount(true, ADDRESS),                              // (int*)
        cuDeviceGet(true, ADDRESS, JAVA_INT),                         // (CUdevice*, int ordinal)
        cuDeviceGetName(true, ADDRESS, JAVA_INT, JAVA_INT),           // (char*, int len, CUdevice)
        cuDeviceTotalMem_v2(true, ADDRESS, JAVA_INT),                 // (size_t*, CUdevice)
        cuDeviceGetAttribute(true, ADDRESS, JAVA_INT, JAVA_INT),      // (int*, CUdevice_attribute, CUdevice)
        cuDevicePrimaryCtxRetain(true, ADDRESS, JAVA_INT),            // (CUcontext*, CUdevice)
        cuDevicePrimaryCtxRelease_v2(true, JAVA_INT),                 // (CUdevice)
        cuDevicePrimaryCtxReset_v2(true, JAVA_INT),                   // (CUdevice)
        cuCtxSynchronize(true),                                       // (void)
        cuCtxSetCurrent(true, ADDRESS),                               // (CUcontext)
        cuThreadExchangeStreamCaptureMode(true, ADDRESS),             // (CUstreamCaptureMode*)
        cuStreamCreate(true, ADDRESS, JAVA_INT),                      // (CUstream*, unsigned int Flags)
        cuStreamDestroy_v2(true, ADDRESS),                            // (CUstream)
        cuStreamSynchronize(true, ADDRESS),                           // (CUstream)
        cuStreamQuery(true, ADDRESS),                                 // (CUstream)
        cuMemAlloc_v2(true, ADDRESS, JAVA_LONG),                      // (CUdeviceptr*, size_t)
        cuMemFree_v2(true, JAVA_LONG),                                // (CUdeviceptr)
        cuMemAllocHost_v2(true, ADDRESS, JAVA_LONG),                  // (void**, size_t)
        cuMemFreeHost(true, ADDRESS),                                 // (void*)
        cuMemcpyHtoD_v2(true, JAVA_LONG, ADDRESS, JAVA_LONG),         // (CUdeviceptr dst, const void* src, size_t)
        cuMemcpyHtoDAsync_v2(true, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS), // (+ CUstream)
        cuMemcpyDtoHAsync_v2(true, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS), // (void* dst, CUdeviceptr src, size_t, CUstream)
        cuModuleLoadDataEx(true, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS), // (CUmodule*, const void* image,
                                                                      //  unsigned int n, CUjit_option*, void**)
        cuModuleGetFunction(true, ADDRESS, ADDRESS, ADDRESS),         // (CUfunction*, CUmodule, const char*)
        cuModuleUnload(true, ADDRESS),                                // (CUmodule)
        cuFuncGetParamInfo(false, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), // (CUfunction, size_t index,
                                                                      //  size_t* offset, size_t* size); CUDA 12.4+
        cuFuncLoad(false, ADDRESS),                                   // (CUfunction); CUDA 12.4+
        cuLaunchKernel(true, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT,   // (CUfunction, grid x y z,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,               //  block x y z, sharedMemBytes,
                ADDRESS, ADDRESS, ADDRESS),                           //  CUstream, void** params, void** extra)
        cuEventCreate(true, ADDRESS, JAVA_INT),                       // (CUevent*, unsigned int Flags)
        cuEventRecord(true, ADDRESS, ADDRESS),                        // (CUevent, CUstream)
        cuEventQuery(true, ADDRESS),                                  // (CUevent)
        cuEventSynchronize(true, ADDRESS),                            // (CUevent)
        cuEventDestroy_v2(true, ADDRESS),                             // (CUevent)
        cuStreamBeginCapture_v2(true, ADDRESS, JAVA_INT),             // (CUstream, CUstreamCaptureMode)
        cuStreamEndCapture(true, ADDRESS, ADDRESS),                   // (CUstream, CUgraph*)
        cuStreamIsCapturing(true, ADDRESS, ADDRESS),                  // (CUstream, CUstreamCaptureStatus*)
        cuStreamGetCaptureInfo_v3(false, ADDRESS, ADDRESS, ADDRESS,   // (CUstream, status*, cuuint64_t* id,
                ADDRESS, ADDRESS, ADDRESS, ADDRESS),                  //  CUgraph*, const CUgraphNode**,
                                                                      //  const CUgraphEdgeData**, size_t*); 12.3+
        cuStreamGetCaptureInfo_v2(false, ADDRESS, ADDRESS, ADDRESS,   // (CUstream, status*, cuuint64_t* id,
                ADDRESS, ADDRESS, ADDRESS),                           //  CUgraph*, const CUgraphNode**, size_t*)
        cuGraphGetNodes(true, ADDRESS, ADDRESS, ADDRESS),             // (CUgraph, CUgraphNode*, size_t*)
        cuGraphNodeGetType(true, ADDRESS, ADDRESS),                   // (CUgraphNode, CUgraphNodeType*)
        cuGraphInstantiateWithFlags(true, ADDRESS, ADDRESS, JAVA_LONG), // (CUgraphExec*, CUgraph,
                                                                      //  unsigned long long flags)
        cuGraphUpload(true, ADDRESS, ADDRESS),                        // (CUgraphExec, CUstream)
        cuGraphLaunch(true, ADDRESS, ADDRESS),                        // (CUgraphExec, CUstream)
        cuGraphExecDestroy(true, ADDRESS),                            // (CUgraphExec)
        cuGraphDestroy(true, ADDRESS),                                // (CUgraph)
        cuGraphDebugDotPrint(true, ADDRESS, ADDRESS, JAVA_INT);       // (CUgraph, const char* path, unsigned int)

        final NativeSymbol.Signature signature;

        Symbol(boolean required, MemoryLayout... arguments) {
            this.signature = NativeSymbol.Signature.of(required, arguments);
        }

        @Override
        public NativeSymbol.Signature signature() {
            return signature;
        }
    }

    /** Names of the result codes, from {@code cuda.h} (CUDA 13.0), for when {@code cuGetErrorName} is unavailable. */
    static final Map<Integer, String> RESULT_NAMES = Map.ofEntries(
            Map.entry(0, "CUDA_SUCCESS"),
            Map.entry(1, "CUDA_ERROR_INVALID_VALUE"),
            Map.entry(2, "CUDA_ERROR_OUT_OF_MEMORY"),
            Map.entry(3, "CUDA_ERROR_NOT_INITIALIZED"),
            Map.entry(4, "CUDA_ERROR_DEINITIALIZED"),
            Map.entry(34, "CUDA_ERROR_STUB_LIBRARY"),
            Map.entry(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"),
            Map.entry(46, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
            Map.entry(100, "CUDA_ERROR_NO_DEVICE"),
            Map.entry(101, "CUDA_ERROR_INVALID_DEVICE"),
            Map.entry(200, "CUDA_ERROR_INVALID_IMAGE"),
            Map.entry(201, "CUDA_ERROR_INVALID_CONTEXT"),
            Map.entry(209, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
            Map.entry(218, "CUDA_ERROR_INVALID_PTX"),
            Map.entry(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"),
            Map.entry(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
            Map.entry(304, "CUDA_ERROR_OPERATING_SYSTEM"),
            Map.entry(400, "CUDA_ERROR_INVALID_HANDLE"),
            Map.entry(401, "CUDA_ERROR_ILLEGAL_STATE"),
            Map.entry(500, "CUDA_ERROR_NOT_FOUND"),
            Map.entry(600, "CUDA_ERROR_NOT_READY"),
            Map.entry(700, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            Map.entry(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            Map.entry(702, "CUDA_ERROR_LAUNCH_TIMEOUT"),
            Map.entry(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"),
            Map.entry(710, "CUDA_ERROR_ASSERT"),
            Map.entry(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"),
            Map.entry(716, "CUDA_ERROR_MISALIGNED_ADDRESS"),
            Map.entry(719, "CUDA_ERROR_LAUNCH_FAILED"),
            Map.entry(800, "CUDA_ERROR_NOT_PERMITTED"),
            Map.entry(801, "CUDA_ERROR_NOT_SUPPORTED"),
            Map.entry(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
            Map.entry(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
            Map.entry(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
            Map.entry(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
            Map.entry(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"),
            Map.entry(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"),
            Map.entry(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"),
            Map.entry(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"),
            Map.entry(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"),
            Map.entry(907, "CUDA_ERROR_CAPTURED_EVENT"),
            Map.entry(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"),
            Map.entry(909, "CUDA_ERROR_TIMEOUT"),
            Map.entry(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"),
            Map.entry(911, "CUDA_ERROR_EXTERNAL_DEVICE"),
            Map.entry(913, "CUDA_ERROR_FUNCTION_NOT_LOADED"),
            Map.entry(999, "CUDA_ERROR_UNKNOWN"));

    /** Prefix of the name of a code missing from {@link #RESULT_NAMES}: {@code CUresult(1234)}. */
    static final String UNKNOWN_RESULT_PREFIX = "CUresult";
}
