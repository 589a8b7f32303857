/*
 * hip_on_cuda.cpp: a libamdhip64.so for an NVIDIA GPU. It implements HIP's own declared ABI (the AMD platform
 * of ROCm's headers) over the CUDA driver API, and hiprtc over NVRTC, so that GraphRT's hip backend can run
 * the whole conformance kit on a machine that has no AMD GPU. It is a TEST library: it proves the hip
 * backend's bindings and call sequences against a real GPU and a real graph implementation (CUDA's), not
 * AMD's runtime.
 *
 * Why the AMD platform of the headers: with -D__HIP_PLATFORM_AMD__ they only *declare* the hip* functions
 * with their exact AMD signatures, so every forwarder below is checked against the real ABI by the compiler
 * (a definition that disagrees with its declaration does not compile). The headers' NVIDIA platform is not
 * used: ROCm 5.2's does not compile against CUDA 13, and it would give CUDA's ABI, not AMD's.
 *
 * What it implements: exactly the hip* and hiprtc* functions the hip backend binds (HipNative.Symbol,
 * Hiprtc.SIGNATURES), plus hipGetErrorString. hipGraphUpload (ROCm 5.3+) and hipGraphDebugDotPrint
 * (ROCm 5.5+) are built unless HIP_ON_CUDA_EXTRAS=0, declared here with ROCm 6.2's prototypes where the
 * headers are older. Result codes are translated (toHip below; 900-908 and 910 are equal, as static_asserts
 * prove). Graph node types are reported in the numbering of the headers it was built against, and
 * hipRuntimeGetVersion returns their HIP_VERSION, so the backend reads node types as that ROCm would.
 *
 * Environment: HIP_ON_CUDA_NVRTC = path of libnvrtc (default: /usr/local/cuda/lib64/libnvrtc.so*, then the
 * loader's libnvrtc.so); HIP_ON_CUDA_TRACE=1 prints every failing call and its codes to stderr.
 *
 * Build (on the GPU machine): backend-hip/src/test/native/build-hip-on-cuda.sh HIP_INCLUDE_DIR [OUT_DIR]
 */
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>
#include <hip/hiprtc.h>

#include <cuda.h>

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#if __has_include(<nvrtc.h>)
#include <nvrtc.h>
#define HIP_ON_CUDA_HAVE_NVRTC_H 1
#else
// The CUDA toolkit's nvrtc.h is not installed here: the two types the declarations below need.
typedef enum { NVRTC_SUCCESS = 0 } nvrtcResult;
typedef struct _nvrtcProgram* nvrtcProgram;
#endif

#ifndef HIP_ON_CUDA_EXTRAS
#define HIP_ON_CUDA_EXTRAS 1
#endif

// ---- the numbers HIP and CUDA share (checked, not assumed) --------------------------------------------------

static_assert(sizeof(hipDeviceptr_t) == sizeof(CUdeviceptr), "device pointers are 64-bit on both");
static_assert((int)hipErrorStreamCaptureUnsupported == (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "900");
static_assert((int)hipErrorStreamCaptureInvalidated == (int)CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "901");
static_assert((int)hipErrorStreamCaptureMerge == (int)CUDA_ERROR_STREAM_CAPTURE_MERGE, "902");
static_assert((int)hipErrorStreamCaptureUnmatched == (int)CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "903");
static_assert((int)hipErrorStreamCaptureUnjoined == (int)CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "904");
static_assert((int)hipErrorStreamCaptureIsolation == (int)CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "905");
static_assert((int)hipErrorStreamCaptureImplicit == (int)CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "906");
static_assert((int)hipErrorCapturedEvent == (int)CUDA_ERROR_CAPTURED_EVENT, "907");
static_assert((int)hipErrorStreamCaptureWrongThread == (int)CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "908");
static_assert((int)hipErrorGraphExecUpdateFailure == (int)CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "910");
static_assert((int)hipStreamCaptureModeGlobal == (int)CU_STREAM_CAPTURE_MODE_GLOBAL, "capture modes");
static_assert((int)hipStreamCaptureModeThreadLocal == (int)CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, "capture modes");
static_assert((int)hipStreamCaptureModeRelaxed == (int)CU_STREAM_CAPTURE_MODE_RELAXED, "capture modes");
static_assert((int)hipStreamCaptureStatusNone == (int)CU_STREAM_CAPTURE_STATUS_NONE, "capture status");
static_assert((int)hipStreamCaptureStatusActive == (int)CU_STREAM_CAPTURE_STATUS_ACTIVE, "capture status");
static_assert((int)hipStreamCaptureStatusInvalidated == (int)CU_STREAM_CAPTURE_STATUS_INVALIDATED, "capture status");
static_assert(hipStreamNonBlocking == CU_STREAM_NON_BLOCKING, "stream flags");
static_assert(hipEventDefault == CU_EVENT_DEFAULT && hipEventBlockingSync == CU_EVENT_BLOCKING_SYNC
              && hipEventDisableTiming == CU_EVENT_DISABLE_TIMING && hipEventInterprocess == CU_EVENT_INTERPROCESS,
              "event flags");
static_assert((int)hipGraphInstantiateFlagAutoFreeOnLaunch == (int)CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
              "instantiate flags");
static_assert((int)HIPRTC_ERROR_INTERNAL_ERROR == 11, "hiprtcResult 0-11 are nvrtcResult 0-11");

// ---- NVRTC, loaded by path (its signatures as in CUDA 13's nvrtc.h; checked where that header is installed) --

namespace nvrtc {
using CreateProgram = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                      const char* const*);
using DestroyProgram = nvrtcResult (*)(nvrtcProgram*);
using CompileProgram = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using GetSize = nvrtcResult (*)(nvrtcProgram, size_t*);
using GetText = nvrtcResult (*)(nvrtcProgram, char*);
using Version = nvrtcResult (*)(int*, int*);
using GetNumSupportedArchs = nvrtcResult (*)(int*);
using GetSupportedArchs = nvrtcResult (*)(int*);
#ifdef HIP_ON_CUDA_HAVE_NVRTC_H
static_assert(std::is_same<CreateProgram, decltype(&::nvrtcCreateProgram)>::value, "nvrtcCreateProgram");
static_assert(std::is_same<DestroyProgram, decltype(&::nvrtcDestroyProgram)>::value, "nvrtcDestroyProgram");
static_assert(std::is_same<CompileProgram, decltype(&::nvrtcCompileProgram)>::value, "nvrtcCompileProgram");
static_assert(std::is_same<GetSize, decltype(&::nvrtcGetPTXSize)>::value, "nvrtcGetPTXSize");
static_assert(std::is_same<GetText, decltype(&::nvrtcGetPTX)>::value, "nvrtcGetPTX");
static_assert(std::is_same<GetSize, decltype(&::nvrtcGetProgramLogSize)>::value, "nvrtcGetProgramLogSize");
static_assert(std::is_same<GetText, decltype(&::nvrtcGetProgramLog)>::value, "nvrtcGetProgramLog");
static_assert(std::is_same<Version, decltype(&::nvrtcVersion)>::value, "nvrtcVersion");
static_assert(std::is_same<GetNumSupportedArchs, decltype(&::nvrtcGetNumSupportedArchs)>::value, "archs");
static_assert(std::is_same<GetSupportedArchs, decltype(&::nvrtcGetSupportedArchs)>::value, "archs");
#endif

struct Library {
    void* handle = nullptr;
    std::string origin;
    CreateProgram createProgram = nullptr;
    DestroyProgram destroyProgram = nullptr;
    CompileProgram compileProgram = nullptr;
    GetSize getPtxSize = nullptr;
    GetText getPtx = nullptr;
    GetSize getProgramLogSize = nullptr;
    GetText getProgramLog = nullptr;
    Version version = nullptr;
    GetNumSupportedArchs getNumSupportedArchs = nullptr;  // optional
    GetSupportedArchs getSupportedArchs = nullptr;        // optional
};

template <typename F> static bool bind(void* handle, const char* name, F& out) {
    out = reinterpret_cast<F>(dlsym(handle, name));
    return out != nullptr;
}

static bool tryOpen(const std::string& path, Library& lib) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        return false;
    }
    Library candidate;
    candidate.handle = handle;
    candidate.origin = path;
    bool complete = bind(handle, "nvrtcCreateProgram", candidate.createProgram)
                    && bind(handle, "nvrtcDestroyProgram", candidate.destroyProgram)
                    && bind(handle, "nvrtcCompileProgram", candidate.compileProgram)
                    && bind(handle, "nvrtcGetPTXSize", candidate.getPtxSize)
                    && bind(handle, "nvrtcGetPTX", candidate.getPtx)
                    && bind(handle, "nvrtcGetProgramLogSize", candidate.getProgramLogSize)
                    && bind(handle, "nvrtcGetProgramLog", candidate.getProgramLog)
                    && bind(handle, "nvrtcVersion", candidate.version);
    if (!complete) {
        dlclose(handle);
        return false;
    }
    bind(handle, "nvrtcGetNumSupportedArchs", candidate.getNumSupportedArchs);
    bind(handle, "nvrtcGetSupportedArchs", candidate.getSupportedArchs);
    lib = candidate;
    return true;
}

/** NVRTC, found once: HIP_ON_CUDA_NVRTC, else /usr/local/cuda/lib64/libnvrtc.so*, else the loader's libnvrtc.so. */
static const Library* library() {
    static std::once_flag once;
    static Library lib;
    static bool found = false;
    std::call_once(once, [] {
        const char* configured = std::getenv("HIP_ON_CUDA_NVRTC");
        if (configured && *configured) {
            found = tryOpen(configured, lib);
            if (!found) {
                std::fprintf(stderr, "hip_on_cuda: HIP_ON_CUDA_NVRTC=%s does not load as NVRTC: %s\n", configured,
                             dlerror());
            }
            return;
        }
        glob_t matches;
        std::memset(&matches, 0, sizeof matches);
        if (glob("/usr/local/cuda/lib64/libnvrtc.so*", 0, nullptr, &matches) == 0) {
            for (size_t i = 0; i < matches.gl_pathc && !found; i++) {
                found = tryOpen(matches.gl_pathv[i], lib);
            }
        }
        globfree(&matches);
        for (const char* soname : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}) {
            if (!found) {
                found = tryOpen(soname, lib);
            }
        }
        if (!found) {
            std::fprintf(stderr, "hip_on_cuda: NVRTC not found (set HIP_ON_CUDA_NVRTC to libnvrtc.so)\n");
        }
    });
    return found ? &lib : nullptr;
}
}  // namespace nvrtc

// ---- result codes, tracing, devices -------------------------------------------------------------------------

namespace {

bool tracing() {
    static const bool on = [] {
        const char* trace = std::getenv("HIP_ON_CUDA_TRACE");
        return trace && *trace && std::strcmp(trace, "0") != 0;
    }();
    return on;
}

/** CUresult → hipError_t, by name on both sides (hip_runtime_api.h of ROCm 5.2.3, cuda.h of CUDA 13.0). */
hipError_t toHip(CUresult result) {
    switch (result) {
        case CUDA_SUCCESS: return hipSuccess;
        case CUDA_ERROR_INVALID_VALUE: return hipErrorInvalidValue;
        case CUDA_ERROR_OUT_OF_MEMORY: return hipErrorOutOfMemory;
        case CUDA_ERROR_NOT_INITIALIZED: return hipErrorNotInitialized;
        case CUDA_ERROR_DEINITIALIZED: return hipErrorDeinitialized;
        case CUDA_ERROR_PROFILER_DISABLED: return hipErrorProfilerDisabled;
        case CUDA_ERROR_PROFILER_NOT_INITIALIZED: return hipErrorProfilerNotInitialized;
        case CUDA_ERROR_PROFILER_ALREADY_STARTED: return hipErrorProfilerAlreadyStarted;
        case CUDA_ERROR_PROFILER_ALREADY_STOPPED: return hipErrorProfilerAlreadyStopped;
        case CUDA_ERROR_STUB_LIBRARY: return hipErrorInsufficientDriver;
        case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: return hipErrorInsufficientDriver;
        case CUDA_ERROR_DEVICE_UNAVAILABLE: return hipErrorInvalidDevice;
        case CUDA_ERROR_NO_DEVICE: return hipErrorNoDevice;
        case CUDA_ERROR_INVALID_DEVICE: return hipErrorInvalidDevice;
        case CUDA_ERROR_DEVICE_NOT_LICENSED: return hipErrorInvalidDevice;
        case CUDA_ERROR_INVALID_IMAGE: return hipErrorInvalidImage;
        case CUDA_ERROR_INVALID_CONTEXT: return hipErrorInvalidContext;
        case CUDA_ERROR_CONTEXT_ALREADY_CURRENT: return hipErrorContextAlreadyCurrent;
        case CUDA_ERROR_MAP_FAILED: return hipErrorMapFailed;
        case CUDA_ERROR_UNMAP_FAILED: return hipErrorUnmapFailed;
        case CUDA_ERROR_ARRAY_IS_MAPPED: return hipErrorArrayIsMapped;
        case CUDA_ERROR_ALREADY_MAPPED: return hipErrorAlreadyMapped;
        case CUDA_ERROR_NO_BINARY_FOR_GPU: return hipErrorNoBinaryForGpu;
        case CUDA_ERROR_ALREADY_ACQUIRED: return hipErrorAlreadyAcquired;
        case CUDA_ERROR_NOT_MAPPED: return hipErrorNotMapped;
        case CUDA_ERROR_NOT_MAPPED_AS_ARRAY: return hipErrorNotMappedAsArray;
        case CUDA_ERROR_NOT_MAPPED_AS_POINTER: return hipErrorNotMappedAsPointer;
        case CUDA_ERROR_ECC_UNCORRECTABLE: return hipErrorECCNotCorrectable;
        case CUDA_ERROR_UNSUPPORTED_LIMIT: return hipErrorUnsupportedLimit;
        case CUDA_ERROR_CONTEXT_ALREADY_IN_USE: return hipErrorContextAlreadyInUse;
        case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return hipErrorPeerAccessUnsupported;
        case CUDA_ERROR_INVALID_PTX: return hipErrorInvalidKernelFile;  // hip_runtime_api.h: "In CUDA DRV, it is CUDA_ERROR_INVALID_PTX"
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return hipErrorInvalidKernelFile;
        case CUDA_ERROR_JIT_COMPILER_NOT_FOUND: return hipErrorInvalidKernelFile;
        case CUDA_ERROR_INVALID_GRAPHICS_CONTEXT: return hipErrorInvalidGraphicsContext;
        case CUDA_ERROR_INVALID_SOURCE: return hipErrorInvalidSource;
        case CUDA_ERROR_FILE_NOT_FOUND: return hipErrorFileNotFound;
        case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: return hipErrorSharedObjectSymbolNotFound;
        case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return hipErrorSharedObjectInitFailed;
        case CUDA_ERROR_OPERATING_SYSTEM: return hipErrorOperatingSystem;
        case CUDA_ERROR_INVALID_HANDLE: return hipErrorInvalidHandle;
        case CUDA_ERROR_ILLEGAL_STATE: return hipErrorIllegalState;
        case CUDA_ERROR_NOT_FOUND: return hipErrorNotFound;
        case CUDA_ERROR_NOT_READY: return hipErrorNotReady;
        case CUDA_ERROR_ILLEGAL_ADDRESS: return hipErrorIllegalAddress;
        case CUDA_ERROR_MISALIGNED_ADDRESS: return hipErrorIllegalAddress;
        case CUDA_ERROR_INVALID_ADDRESS_SPACE: return hipErrorIllegalAddress;
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return hipErrorLaunchOutOfResources;
        case CUDA_ERROR_LAUNCH_TIMEOUT: return hipErrorLaunchTimeOut;
        case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return hipErrorPeerAccessAlreadyEnabled;
        case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return hipErrorPeerAccessNotEnabled;
        case CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: return hipErrorSetOnActiveProcess;
        case CUDA_ERROR_CONTEXT_IS_DESTROYED: return hipErrorContextIsDestroyed;
        case CUDA_ERROR_ASSERT: return hipErrorAssert;
        case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return hipErrorHostMemoryAlreadyRegistered;
        case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return hipErrorHostMemoryNotRegistered;
        case CUDA_ERROR_HARDWARE_STACK_ERROR: return hipErrorLaunchFailure;
        case CUDA_ERROR_ILLEGAL_INSTRUCTION: return hipErrorLaunchFailure;
        case CUDA_ERROR_INVALID_PC: return hipErrorLaunchFailure;
        case CUDA_ERROR_LAUNCH_FAILED: return hipErrorLaunchFailure;
        case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return hipErrorCooperativeLaunchTooLarge;
        case CUDA_ERROR_NOT_PERMITTED: return hipErrorNotSupported;
        case CUDA_ERROR_NOT_SUPPORTED: return hipErrorNotSupported;
        case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return hipErrorInsufficientDriver;
        case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return hipErrorInsufficientDriver;
        case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return hipErrorStreamCaptureUnsupported;
        case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return hipErrorStreamCaptureInvalidated;
        case CUDA_ERROR_STREAM_CAPTURE_MERGE: return hipErrorStreamCaptureMerge;
        case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return hipErrorStreamCaptureUnmatched;
        case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return hipErrorStreamCaptureUnjoined;
        case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return hipErrorStreamCaptureIsolation;
        case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return hipErrorStreamCaptureImplicit;
        case CUDA_ERROR_CAPTURED_EVENT: return hipErrorCapturedEvent;
        case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return hipErrorStreamCaptureWrongThread;
        case CUDA_ERROR_TIMEOUT: return hipErrorUnknown;  // HIP has no 909
        case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: return hipErrorGraphExecUpdateFailure;
        case CUDA_ERROR_FUNCTION_NOT_LOADED: return hipErrorInvalidDeviceFunction;
        case CUDA_ERROR_INVALID_CLUSTER_SIZE: return hipErrorInvalidConfiguration;
        default: return hipErrorUnknown;
    }
}

hipError_t report(const char* call, CUresult result) {
    hipError_t hip = toHip(result);
    if (result != CUDA_SUCCESS && tracing()) {
        std::fprintf(stderr, "hip_on_cuda: %s -> CUresult %d -> hipError_t %d\n", call, (int)result, (int)hip);
    }
    return hip;
}

hipError_t fail(const char* call, hipError_t hip, const char* why) {
    if (tracing()) {
        std::fprintf(stderr, "hip_on_cuda: %s -> hipError_t %d (%s)\n", call, (int)hip, why);
    }
    return hip;
}

#define HIP_ON_CUDA_CHECK(call, expr)                           \
    do {                                                        \
        CUresult hip_on_cuda_rc = (expr);                       \
        if (hip_on_cuda_rc != CUDA_SUCCESS) {                   \
            return report(call, hip_on_cuda_rc);                \
        }                                                       \
    } while (0)

constexpr int MAX_DEVICES = 64;
std::mutex g_lock;
CUcontext g_primary[MAX_DEVICES];
thread_local int t_device = 0;
thread_local bool t_bound = false;

CUresult initialise() {
    static std::once_flag once;
    static CUresult result = CUDA_SUCCESS;
    std::call_once(once, [] { result = cuInit(0); });
    return result;
}

/** The primary context of HIP device {@code ordinal}, retained on first use and held for the process's life. */
CUresult primaryContext(int ordinal, CUcontext* out) {
    CUresult rc = initialise();
    if (rc != CUDA_SUCCESS) {
        return rc;
    }
    if (ordinal < 0 || ordinal >= MAX_DEVICES) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    std::lock_guard<std::mutex> guard(g_lock);
    if (!g_primary[ordinal]) {
        CUdevice device;
        rc = cuDeviceGet(&device, ordinal);
        if (rc == CUDA_SUCCESS) {
            rc = cuDevicePrimaryCtxRetain(&g_primary[ordinal], device);
        }
        if (rc != CUDA_SUCCESS) {
            return rc;
        }
    }
    *out = g_primary[ordinal];
    return CUDA_SUCCESS;
}

/** Makes the primary context of HIP device {@code ordinal} current on this thread (HIP's current device). */
CUresult bindDevice(int ordinal) {
    CUcontext context;
    CUresult rc = primaryContext(ordinal, &context);
    if (rc != CUDA_SUCCESS) {
        return rc;
    }
    CUcontext current = nullptr;
    if (t_bound && t_device == ordinal && cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context) {
        return CUDA_SUCCESS; // already current: AMD's hipSetDevice is a thread-state write, not a driver call
    }
    rc = cuCtxSetCurrent(context);
    if (rc == CUDA_SUCCESS) {
        t_device = ordinal;
        t_bound = true;
    }
    return rc;
}

/** HIP needs no hipSetDevice before use: a thread that never called it works on device 0. */
CUresult ensureContext() {
    return t_bound ? CUDA_SUCCESS : bindDevice(t_device);
}

#define HIP_ON_CUDA_CONTEXT(call) HIP_ON_CUDA_CHECK(call, ensureContext())

CUdevice_attribute toCudaAttribute(hipDeviceAttribute_t attribute, bool& known) {
    known = true;
    switch (attribute) {
        case hipDeviceAttributeMultiprocessorCount: return CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
        case hipDeviceAttributeComputeCapabilityMajor: return CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
        case hipDeviceAttributeComputeCapabilityMinor: return CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
        case hipDeviceAttributeWarpSize: return CU_DEVICE_ATTRIBUTE_WARP_SIZE;
        case hipDeviceAttributeMaxThreadsPerBlock: return CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        case hipDeviceAttributeMaxBlockDimX: return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X;
        case hipDeviceAttributeMaxBlockDimY: return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y;
        case hipDeviceAttributeMaxBlockDimZ: return CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z;
        case hipDeviceAttributeMaxGridDimX: return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X;
        case hipDeviceAttributeMaxGridDimY: return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y;
        case hipDeviceAttributeMaxGridDimZ: return CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z;
        default: known = false; return CU_DEVICE_ATTRIBUTE_WARP_SIZE;
    }
}

/** A CUDA node type in the numbering of the HIP headers this library was built against. */
hipGraphNodeType toHipNodeType(CUgraphNodeType type) {
    switch (type) {
        case CU_GRAPH_NODE_TYPE_KERNEL: return hipGraphNodeTypeKernel;
        case CU_GRAPH_NODE_TYPE_MEMCPY: return hipGraphNodeTypeMemcpy;
        case CU_GRAPH_NODE_TYPE_MEMSET: return hipGraphNodeTypeMemset;
        case CU_GRAPH_NODE_TYPE_HOST: return hipGraphNodeTypeHost;
        case CU_GRAPH_NODE_TYPE_GRAPH: return hipGraphNodeTypeGraph;
        case CU_GRAPH_NODE_TYPE_EMPTY: return hipGraphNodeTypeEmpty;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return hipGraphNodeTypeWaitEvent;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return hipGraphNodeTypeEventRecord;
#if HIP_VERSION >= 50500000
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return hipGraphNodeTypeMemAlloc;
        case CU_GRAPH_NODE_TYPE_MEM_FREE: return hipGraphNodeTypeMemFree;
#endif
        default: return hipGraphNodeTypeCount;  // no name in this ABI (ROCm 5.2 has no memory nodes)
    }
}

const char* hipErrorNameOf(hipError_t error) {
    switch (error) {
        case hipSuccess: return "hipSuccess";
        case hipErrorInvalidValue: return "hipErrorInvalidValue";
        case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
        case hipErrorNotInitialized: return "hipErrorNotInitialized";
        case hipErrorDeinitialized: return "hipErrorDeinitialized";
        case hipErrorProfilerDisabled: return "hipErrorProfilerDisabled";
        case hipErrorProfilerNotInitialized: return "hipErrorProfilerNotInitialized";
        case hipErrorProfilerAlreadyStarted: return "hipErrorProfilerAlreadyStarted";
        case hipErrorProfilerAlreadyStopped: return "hipErrorProfilerAlreadyStopped";
        case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
        case hipErrorInvalidPitchValue: return "hipErrorInvalidPitchValue";
        case hipErrorInvalidSymbol: return "hipErrorInvalidSymbol";
        case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
        case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
        case hipErrorInsufficientDriver: return "hipErrorInsufficientDriver";
        case hipErrorMissingConfiguration: return "hipErrorMissingConfiguration";
        case hipErrorPriorLaunchFailure: return "hipErrorPriorLaunchFailure";
        case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
        case hipErrorNoDevice: return "hipErrorNoDevice";
        case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
        case hipErrorInvalidImage: return "hipErrorInvalidImage";
        case hipErrorInvalidContext: return "hipErrorInvalidContext";
        case hipErrorContextAlreadyCurrent: return "hipErrorContextAlreadyCurrent";
        case hipErrorMapFailed: return "hipErrorMapFailed";
        case hipErrorUnmapFailed: return "hipErrorUnmapFailed";
        case hipErrorArrayIsMapped: return "hipErrorArrayIsMapped";
        case hipErrorAlreadyMapped: return "hipErrorAlreadyMapped";
        case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
        case hipErrorAlreadyAcquired: return "hipErrorAlreadyAcquired";
        case hipErrorNotMapped: return "hipErrorNotMapped";
        case hipErrorNotMappedAsArray: return "hipErrorNotMappedAsArray";
        case hipErrorNotMappedAsPointer: return "hipErrorNotMappedAsPointer";
        case hipErrorECCNotCorrectable: return "hipErrorECCNotCorrectable";
        case hipErrorUnsupportedLimit: return "hipErrorUnsupportedLimit";
        case hipErrorContextAlreadyInUse: return "hipErrorContextAlreadyInUse";
        case hipErrorPeerAccessUnsupported: return "hipErrorPeerAccessUnsupported";
        case hipErrorInvalidKernelFile: return "hipErrorInvalidKernelFile";
        case hipErrorInvalidGraphicsContext: return "hipErrorInvalidGraphicsContext";
        case hipErrorInvalidSource: return "hipErrorInvalidSource";
        case hipErrorFileNotFound: return "hipErrorFileNotFound";
        case hipErrorSharedObjectSymbolNotFound: return "hipErrorSharedObjectSymbolNotFound";
        case hipErrorSharedObjectInitFailed: return "hipErrorSharedObjectInitFailed";
        case hipErrorOperatingSystem: return "hipErrorOperatingSystem";
        case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
        case hipErrorIllegalState: return "hipErrorIllegalState";
        case hipErrorNotFound: return "hipErrorNotFound";
        case hipErrorNotReady: return "hipErrorNotReady";
        case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
        case hipErrorLaunchOutOfResources: return "hipErrorLaunchOutOfResources";
        case hipErrorLaunchTimeOut: return "hipErrorLaunchTimeOut";
        case hipErrorPeerAccessAlreadyEnabled: return "hipErrorPeerAccessAlreadyEnabled";
        case hipErrorPeerAccessNotEnabled: return "hipErrorPeerAccessNotEnabled";
        case hipErrorSetOnActiveProcess: return "hipErrorSetOnActiveProcess";
        case hipErrorContextIsDestroyed: return "hipErrorContextIsDestroyed";
        case hipErrorAssert: return "hipErrorAssert";
        case hipErrorHostMemoryAlreadyRegistered: return "hipErrorHostMemoryAlreadyRegistered";
        case hipErrorHostMemoryNotRegistered: return "hipErrorHostMemoryNotRegistered";
        case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
        case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
        case hipErrorNotSupported: return "hipErrorNotSupported";
        case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
        case hipErrorStreamCaptureInvalidated: return "hipErrorStreamCaptureInvalidated";
        case hipErrorStreamCaptureMerge: return "hipErrorStreamCaptureMerge";
        case hipErrorStreamCaptureUnmatched: return "hipErrorStreamCaptureUnmatched";
        case hipErrorStreamCaptureUnjoined: return "hipErrorStreamCaptureUnjoined";
        case hipErrorStreamCaptureIsolation: return "hipErrorStreamCaptureIsolation";
        case hipErrorStreamCaptureImplicit: return "hipErrorStreamCaptureImplicit";
        case hipErrorCapturedEvent: return "hipErrorCapturedEvent";
        case hipErrorStreamCaptureWrongThread: return "hipErrorStreamCaptureWrongThread";
        case hipErrorGraphExecUpdateFailure: return "hipErrorGraphExecUpdateFailure";
        case hipErrorRuntimeMemory: return "hipErrorRuntimeMemory";
        case hipErrorRuntimeOther: return "hipErrorRuntimeOther";
        default: return "hipErrorUnknown";
    }
}

hiprtcResult toHiprtc(nvrtcResult result) {
    int code = static_cast<int>(result);
    return code >= 0 && code <= static_cast<int>(HIPRTC_ERROR_INTERNAL_ERROR) ? static_cast<hiprtcResult>(code)
                                                                               : HIPRTC_ERROR_INTERNAL_ERROR;
}

nvrtcProgram toNvrtc(hiprtcProgram program) {
    return reinterpret_cast<nvrtcProgram>(program);
}

/** "--gpu-architecture=compute_XY" of the current device, or the newest NVRTC supports below it. */
std::string architectureOption(const nvrtc::Library& lib) {
    int major = 0;
    int minor = 0;
    CUdevice device;
    if (ensureContext() != CUDA_SUCCESS || cuDeviceGet(&device, t_device) != CUDA_SUCCESS
        || cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS
        || cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS) {
        return "";
    }
    int wanted = major * 10 + minor;
    int chosen = wanted;
    int count = 0;
    if (lib.getNumSupportedArchs && lib.getSupportedArchs && lib.getNumSupportedArchs(&count) == NVRTC_SUCCESS
        && count > 0 && count < 1024) {
        std::vector<int> archs(count);
        if (lib.getSupportedArchs(archs.data()) == NVRTC_SUCCESS) {
            int best = -1;
            for (int arch : archs) {
                if (arch <= wanted && arch > best) {
                    best = arch;
                }
            }
            if (best > 0) {
                chosen = best;
            }
        }
    }
    return "--gpu-architecture=compute_" + std::to_string(chosen);
}

bool startsWith(const char* text, const char* prefix) {
    return text && std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

}  // namespace

// ---- the HIP runtime API --------------------------------------------------------------------------------------

extern "C" {

hipError_t hipInit(unsigned int flags) {
    return report("hipInit", cuInit(flags));
}

hipError_t hipDriverGetVersion(int* driverVersion) {
    if (!driverVersion) {
        return hipErrorInvalidValue;
    }
    *driverVersion = HIP_VERSION;  // the HIP ABI these forwarders implement, as ROCm reports its own
    return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
    if (!runtimeVersion) {
        return hipErrorInvalidValue;
    }
    *runtimeVersion = HIP_VERSION;
    return hipSuccess;
}

const char* hipGetErrorName(hipError_t hip_error) {
    return hipErrorNameOf(hip_error);
}

const char* hipGetErrorString(hipError_t hipError) {
    return hipErrorNameOf(hipError);
}

hipError_t hipGetDeviceCount(int* count) {
    if (!count) {
        return hipErrorInvalidValue;
    }
    *count = 0;
    CUresult rc = initialise();
    if (rc == CUDA_ERROR_NO_DEVICE) {
        return fail("hipGetDeviceCount", hipErrorNoDevice, "cuInit: no CUDA device");
    }
    HIP_ON_CUDA_CHECK("hipGetDeviceCount/cuInit", rc);
    HIP_ON_CUDA_CHECK("hipGetDeviceCount", cuDeviceGetCount(count));
    return *count > 0 ? hipSuccess : fail("hipGetDeviceCount", hipErrorNoDevice, "0 devices");
}

hipError_t hipSetDevice(int deviceId) {
    static std::atomic<int> known{0};  // devices do not come and go: count them once (never during a capture)
    int count = known.load(std::memory_order_relaxed);
    if (count == 0) {
        hipError_t counted = hipGetDeviceCount(&count);
        if (counted != hipSuccess) {
            return counted;
        }
        known.store(count, std::memory_order_relaxed);
    }
    if (deviceId < 0 || deviceId >= count) {
        return fail("hipSetDevice", hipErrorInvalidDevice, "no such ordinal");
    }
    return report("hipSetDevice", bindDevice(deviceId));
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
    if (!name || len <= 0) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CHECK("hipDeviceGetName/cuInit", initialise());
    CUdevice cuda;
    HIP_ON_CUDA_CHECK("hipDeviceGetName/cuDeviceGet", cuDeviceGet(&cuda, device));
    HIP_ON_CUDA_CHECK("hipDeviceGetName", cuDeviceGetName(name, len, cuda));
    const char* marker = " (HIP on CUDA)";
    if (std::strlen(name) + std::strlen(marker) < static_cast<size_t>(len)) {
        std::strcat(name, marker);  // so logs and benchmark tables say what ran
    }
    return hipSuccess;
}

hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
    if (!bytes) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CHECK("hipDeviceTotalMem/cuInit", initialise());
    CUdevice cuda;
    HIP_ON_CUDA_CHECK("hipDeviceTotalMem/cuDeviceGet", cuDeviceGet(&cuda, device));
    return report("hipDeviceTotalMem", cuDeviceTotalMem(bytes, cuda));
}

hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
    if (!pi) {
        return hipErrorInvalidValue;
    }
    bool known;
    CUdevice_attribute cuda = toCudaAttribute(attr, known);
    if (!known) {
        return fail("hipDeviceGetAttribute", hipErrorInvalidValue, "attribute not forwarded by this library");
    }
    HIP_ON_CUDA_CHECK("hipDeviceGetAttribute/cuInit", initialise());
    CUdevice device;
    HIP_ON_CUDA_CHECK("hipDeviceGetAttribute/cuDeviceGet", cuDeviceGet(&device, deviceId));
    return report("hipDeviceGetAttribute", cuDeviceGetAttribute(pi, cuda, device));
}

hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode* mode) {
    if (!mode) {
        return hipErrorInvalidValue;
    }
    CUstreamCaptureMode cuda = static_cast<CUstreamCaptureMode>(*mode);
    HIP_ON_CUDA_CHECK("hipThreadExchangeStreamCaptureMode", cuThreadExchangeStreamCaptureMode(&cuda));
    *mode = static_cast<hipStreamCaptureMode>(cuda);
    return hipSuccess;
}

// ---- streams ----

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
    if (!stream || (flags & ~static_cast<unsigned int>(hipStreamNonBlocking)) != 0) {
        return fail("hipStreamCreateWithFlags", hipErrorInvalidValue, "unsupported flags");
    }
    HIP_ON_CUDA_CONTEXT("hipStreamCreateWithFlags");
    CUstream cuda;
    HIP_ON_CUDA_CHECK("hipStreamCreateWithFlags", cuStreamCreate(&cuda, flags));
    *stream = reinterpret_cast<hipStream_t>(cuda);
    return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipStreamDestroy");
    return report("hipStreamDestroy", cuStreamDestroy(reinterpret_cast<CUstream>(stream)));
}

hipError_t hipDeviceSynchronize(void) {
    HIP_ON_CUDA_CONTEXT("hipDeviceSynchronize");
    return report("hipDeviceSynchronize", cuCtxSynchronize());
}

/** HIP's process-wide device context is CUDA's primary context: resetting it clears a sticky error. */
hipError_t hipDeviceReset(void) {
    HIP_ON_CUDA_CONTEXT("hipDeviceReset");
    CUdevice device;
    CUresult rc = cuCtxGetDevice(&device);
    if (rc == CUDA_SUCCESS) {
        rc = cuDevicePrimaryCtxReset(device);
    }
    if (rc == CUDA_SUCCESS) {
        // the reset destroyed the context behind the handle this library retained: retain the fresh one
        std::lock_guard<std::mutex> guard(g_lock);
        cuDevicePrimaryCtxRelease(device);
        rc = cuDevicePrimaryCtxRetain(&g_primary[t_device], device);
        if (rc == CUDA_SUCCESS) {
            rc = cuCtxSetCurrent(g_primary[t_device]);
        }
    }
    return report("hipDeviceReset", rc);
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipStreamSynchronize");
    return report("hipStreamSynchronize", cuStreamSynchronize(reinterpret_cast<CUstream>(stream)));
}

hipError_t hipStreamQuery(hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipStreamQuery");
    CUresult rc = cuStreamQuery(reinterpret_cast<CUstream>(stream));
    return rc == CUDA_ERROR_NOT_READY ? hipErrorNotReady : report("hipStreamQuery", rc);
}

// ---- memory ----

hipError_t hipMalloc(void** ptr, size_t size) {
    if (!ptr) {
        return hipErrorInvalidValue;
    }
    *ptr = nullptr;
    if (size == 0) {
        return hipSuccess;  // as ROCm: a null pointer and success
    }
    HIP_ON_CUDA_CONTEXT("hipMalloc");
    CUdeviceptr device = 0;
    HIP_ON_CUDA_CHECK("hipMalloc", cuMemAlloc(&device, size));
    *ptr = reinterpret_cast<void*>(device);
    return hipSuccess;
}

hipError_t hipFree(void* ptr) {
    if (!ptr) {
        return hipSuccess;
    }
    HIP_ON_CUDA_CONTEXT("hipFree");
    return report("hipFree", cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
    if (!ptr) {
        return hipErrorInvalidValue;
    }
    *ptr = nullptr;
    if (flags != hipHostMallocDefault) {
        return fail("hipHostMalloc", hipErrorNotSupported, "only hipHostMallocDefault is forwarded");
    }
    if (size == 0) {
        return hipSuccess;
    }
    HIP_ON_CUDA_CONTEXT("hipHostMalloc");
    return report("hipHostMalloc", cuMemAllocHost(ptr, size));
}

hipError_t hipHostFree(void* ptr) {
    if (!ptr) {
        return hipSuccess;
    }
    HIP_ON_CUDA_CONTEXT("hipHostFree");
    return report("hipHostFree", cuMemFreeHost(ptr));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t sizeBytes) {
    HIP_ON_CUDA_CONTEXT("hipMemcpyHtoD");
    return report("hipMemcpyHtoD", cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, sizeBytes));
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipMemcpyHtoDAsync");
    return report("hipMemcpyHtoDAsync", cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, sizeBytes,
                                                          reinterpret_cast<CUstream>(stream)));
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipMemcpyDtoDAsync");
    // unified addressing: either pointer may be another device's, as ROCm's device-to-device copy allows
    return report("hipMemcpyDtoDAsync", cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                                      reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                                      reinterpret_cast<CUstream>(stream)));
}

hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId) {
    if (!canAccessPeer) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CHECK("hipDeviceCanAccessPeer/cuInit", initialise());
    CUdevice device, peer;
    HIP_ON_CUDA_CHECK("hipDeviceCanAccessPeer/cuDeviceGet", cuDeviceGet(&device, deviceId));
    HIP_ON_CUDA_CHECK("hipDeviceCanAccessPeer/cuDeviceGet", cuDeviceGet(&peer, peerDeviceId));
    return report("hipDeviceCanAccessPeer", cuDeviceCanAccessPeer(canAccessPeer, device, peer));
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
    HIP_ON_CUDA_CONTEXT("hipDeviceEnablePeerAccess");
    CUcontext peer;
    HIP_ON_CUDA_CHECK("hipDeviceEnablePeerAccess/retain", primaryContext(peerDeviceId, &peer));
    return report("hipDeviceEnablePeerAccess", cuCtxEnablePeerAccess(peer, flags));
}

hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipMemcpyDtoHAsync");
    return report("hipMemcpyDtoHAsync", cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                                          reinterpret_cast<CUstream>(stream)));
}

// ---- modules and launches ----

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
    if (!module || !image) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipModuleLoadData");
    static thread_local char log[16384];
    log[0] = '\0';
    CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[2] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log))};
    CUmodule cuda;
    CUresult rc = cuModuleLoadDataEx(&cuda, image, 2, options, values);
    if (rc != CUDA_SUCCESS) {
        log[sizeof log - 1] = '\0';
        std::fprintf(stderr, "hip_on_cuda: hipModuleLoadData: cuModuleLoadDataEx failed (%d): %s\n", (int)rc, log);
        return report("hipModuleLoadData", rc);
    }
    *module = reinterpret_cast<hipModule_t>(cuda);
    return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname) {
    if (!function || !kname) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipModuleGetFunction");
    CUfunction cuda;
    CUresult rc = cuModuleGetFunction(&cuda, reinterpret_cast<CUmodule>(module), kname);
    if (rc != CUDA_SUCCESS) {
        return rc == CUDA_ERROR_NOT_FOUND ? hipErrorNotFound : report("hipModuleGetFunction", rc);
    }
    CUresult loaded = cuFuncLoad(cuda);  // now, not lazily inside a capture
    if (loaded != CUDA_SUCCESS && tracing()) {
        std::fprintf(stderr, "hip_on_cuda: cuFuncLoad(%s) -> %d; the driver loads it at first launch\n", kname,
                     (int)loaded);
    }
    *function = reinterpret_cast<hipFunction_t>(cuda);
    return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
    HIP_ON_CUDA_CONTEXT("hipModuleUnload");
    return report("hipModuleUnload", cuModuleUnload(reinterpret_cast<CUmodule>(module)));
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void** kernelParams, void** extra) {
    HIP_ON_CUDA_CONTEXT("hipModuleLaunchKernel");
    void* cudaExtra[5];
    void** translated = nullptr;
    if (extra) {  // HIP ends the list with HIP_LAUNCH_PARAM_END (3), CUDA with CU_LAUNCH_PARAM_END (0)
        int n = 0;
        for (int i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
            if (n > 2 || (extra[i] != HIP_LAUNCH_PARAM_BUFFER_POINTER && extra[i] != HIP_LAUNCH_PARAM_BUFFER_SIZE)) {
                return fail("hipModuleLaunchKernel", hipErrorInvalidValue, "unknown extra entry");
            }
            cudaExtra[n++] = extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER ? CU_LAUNCH_PARAM_BUFFER_POINTER
                                                                        : CU_LAUNCH_PARAM_BUFFER_SIZE;
            cudaExtra[n++] = extra[i + 1];
        }
        cudaExtra[n] = CU_LAUNCH_PARAM_END;
        translated = cudaExtra;
    }
    return report("hipModuleLaunchKernel",
                  cuLaunchKernel(reinterpret_cast<CUfunction>(f), gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                                 blockDimZ, sharedMemBytes, reinterpret_cast<CUstream>(stream), kernelParams,
                                 translated));
}

// ---- events ----

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
    if (flags != 0) {
        return fail("hipStreamWaitEvent", hipErrorInvalidValue, "flags must be 0");
    }
    HIP_ON_CUDA_CONTEXT("hipStreamWaitEvent");
    return report("hipStreamWaitEvent", cuStreamWaitEvent(reinterpret_cast<CUstream>(stream),
                                                          reinterpret_cast<CUevent>(event), 0));
}

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
    const unsigned forwarded = hipEventDefault | hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;
    if (!event || (flags & ~forwarded) != 0) {
        return fail("hipEventCreateWithFlags", hipErrorInvalidValue, "unsupported flags");
    }
    HIP_ON_CUDA_CONTEXT("hipEventCreateWithFlags");
    CUevent cuda;
    HIP_ON_CUDA_CHECK("hipEventCreateWithFlags", cuEventCreate(&cuda, flags));
    *event = reinterpret_cast<hipEvent_t>(cuda);
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipEventRecord");
    return report("hipEventRecord", cuEventRecord(reinterpret_cast<CUevent>(event), reinterpret_cast<CUstream>(stream)));
}

hipError_t hipEventQuery(hipEvent_t event) {
    HIP_ON_CUDA_CONTEXT("hipEventQuery");
    CUresult rc = cuEventQuery(reinterpret_cast<CUevent>(event));
    return rc == CUDA_ERROR_NOT_READY ? hipErrorNotReady : report("hipEventQuery", rc);
}

hipError_t hipEventSynchronize(hipEvent_t event) {
    HIP_ON_CUDA_CONTEXT("hipEventSynchronize");
    return report("hipEventSynchronize", cuEventSynchronize(reinterpret_cast<CUevent>(event)));
}

hipError_t hipEventDestroy(hipEvent_t event) {
    HIP_ON_CUDA_CONTEXT("hipEventDestroy");
    return report("hipEventDestroy", cuEventDestroy(reinterpret_cast<CUevent>(event)));
}

// ---- stream capture and graphs ----

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
    HIP_ON_CUDA_CONTEXT("hipStreamBeginCapture");
    return report("hipStreamBeginCapture", cuStreamBeginCapture(reinterpret_cast<CUstream>(stream),
                                                                static_cast<CUstreamCaptureMode>(mode)));
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* pGraph) {
    if (!pGraph) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipStreamEndCapture");
    CUgraph graph = nullptr;
    CUresult rc = cuStreamEndCapture(reinterpret_cast<CUstream>(stream), &graph);
    *pGraph = reinterpret_cast<hipGraph_t>(graph);
    return report("hipStreamEndCapture", rc);
}

hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* pCaptureStatus) {
    if (!pCaptureStatus) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipStreamIsCapturing");
    CUstreamCaptureStatus status;
    HIP_ON_CUDA_CHECK("hipStreamIsCapturing", cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &status));
    *pCaptureStatus = static_cast<hipStreamCaptureStatus>(status);
    return hipSuccess;
}

// HIP's capture info has no edge data (CUDA 12.3 added it); GraphRT's captures have plain edges.
hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus* captureStatus_out,
                                      unsigned long long* id_out, hipGraph_t* graph_out,
                                      const hipGraphNode_t** dependencies_out, size_t* numDependencies_out) {
    if (!captureStatus_out) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipStreamGetCaptureInfo_v2");
    CUstreamCaptureStatus status;
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    const CUgraphNode* dependencies = nullptr;
    size_t count = 0;
    HIP_ON_CUDA_CHECK("hipStreamGetCaptureInfo_v2",
                      cuStreamGetCaptureInfo(reinterpret_cast<CUstream>(stream), &status, &id, &graph, &dependencies,
                                             nullptr, &count));
    *captureStatus_out = static_cast<hipStreamCaptureStatus>(status);
    if (id_out) *id_out = id;
    if (graph_out) *graph_out = reinterpret_cast<hipGraph_t>(graph);
    if (dependencies_out) *dependencies_out = reinterpret_cast<const hipGraphNode_t*>(dependencies);
    if (numDependencies_out) *numDependencies_out = count;
    return hipSuccess;
}

hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t* dependencies,
                                              size_t numDependencies, unsigned int flags) {
    static_assert((int)hipStreamSetCaptureDependencies == (int)CU_STREAM_SET_CAPTURE_DEPENDENCIES, "flags");
    static_assert((int)hipStreamAddCaptureDependencies == (int)CU_STREAM_ADD_CAPTURE_DEPENDENCIES, "flags");
    HIP_ON_CUDA_CONTEXT("hipStreamUpdateCaptureDependencies");
    return report("hipStreamUpdateCaptureDependencies",
                  cuStreamUpdateCaptureDependencies(reinterpret_cast<CUstream>(stream),
                                                    reinterpret_cast<CUgraphNode*>(dependencies), nullptr,
                                                    numDependencies, flags));
}

hipError_t hipGraphAddChildGraphNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                     const hipGraphNode_t* pDependencies, size_t numDependencies,
                                     hipGraph_t childGraph) {
    if (!pGraphNode) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipGraphAddChildGraphNode");
    CUgraphNode node;
    HIP_ON_CUDA_CHECK("hipGraphAddChildGraphNode",
                      cuGraphAddChildGraphNode(&node, reinterpret_cast<CUgraph>(graph),
                                               reinterpret_cast<const CUgraphNode*>(pDependencies), numDependencies,
                                               reinterpret_cast<CUgraph>(childGraph)));
    *pGraphNode = reinterpret_cast<hipGraphNode_t>(node);
    return hipSuccess;
}

hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* numNodes) {
    if (!numNodes) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipGraphGetNodes");
    static_assert(sizeof(hipGraphNode_t) == sizeof(CUgraphNode), "node handles are pointers on both");
    return report("hipGraphGetNodes", cuGraphGetNodes(reinterpret_cast<CUgraph>(graph),
                                                      reinterpret_cast<CUgraphNode*>(nodes), numNodes));
}

hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* pType) {
    if (!pType) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipGraphNodeGetType");
    CUgraphNodeType type;
    HIP_ON_CUDA_CHECK("hipGraphNodeGetType", cuGraphNodeGetType(reinterpret_cast<CUgraphNode>(node), &type));
    *pType = toHipNodeType(type);
    return hipSuccess;
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* pGraphExec, hipGraph_t graph,
                                        unsigned long long flags) {
    if (!pGraphExec) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipGraphInstantiateWithFlags");
    CUgraphExec exec;
    HIP_ON_CUDA_CHECK("hipGraphInstantiateWithFlags",
                      cuGraphInstantiateWithFlags(&exec, reinterpret_cast<CUgraph>(graph), flags));
    *pGraphExec = reinterpret_cast<hipGraphExec_t>(exec);
    return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipGraphLaunch");
    return report("hipGraphLaunch", cuGraphLaunch(reinterpret_cast<CUgraphExec>(graphExec),
                                                  reinterpret_cast<CUstream>(stream)));
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec) {
    HIP_ON_CUDA_CONTEXT("hipGraphExecDestroy");
    return report("hipGraphExecDestroy", cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(graphExec)));
}

hipError_t hipGraphDestroy(hipGraph_t graph) {
    HIP_ON_CUDA_CONTEXT("hipGraphDestroy");
    return report("hipGraphDestroy", cuGraphDestroy(reinterpret_cast<CUgraph>(graph)));
}

// HIP keeps CUDA 11's update signature (two out-parameters); CUDA 12 reports through a result-info struct.
hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph, hipGraphNode_t* hErrorNode_out,
                              hipGraphExecUpdateResult* updateResult_out) {
    if (!hErrorNode_out || !updateResult_out) {
        return fail("hipGraphExecUpdate", hipErrorInvalidValue, "null out-parameter");
    }
    HIP_ON_CUDA_CONTEXT("hipGraphExecUpdate");
    CUgraphExecUpdateResultInfo info;
    std::memset(&info, 0, sizeof info);
    CUresult rc = cuGraphExecUpdate(reinterpret_cast<CUgraphExec>(hGraphExec), reinterpret_cast<CUgraph>(hGraph), &info);
    *hErrorNode_out = reinterpret_cast<hipGraphNode_t>(info.errorNode);
    *updateResult_out = static_cast<hipGraphExecUpdateResult>(info.result);
    return report("hipGraphExecUpdate", rc);
}

// hipKernelNodeParams orders its fields differently from CUDA_KERNEL_NODE_PARAMS; the values are the same.
hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipKernelNodeParams* pNodeParams) {
    if (!pNodeParams || pNodeParams->extra) {
        return fail("hipGraphExecKernelNodeSetParams", hipErrorInvalidValue, "null params or extra (unsupported)");
    }
    HIP_ON_CUDA_CONTEXT("hipGraphExecKernelNodeSetParams");
    CUDA_KERNEL_NODE_PARAMS params;
    std::memset(&params, 0, sizeof params);
    params.func = reinterpret_cast<CUfunction>(pNodeParams->func);
    params.gridDimX = pNodeParams->gridDim.x;
    params.gridDimY = pNodeParams->gridDim.y;
    params.gridDimZ = pNodeParams->gridDim.z;
    params.blockDimX = pNodeParams->blockDim.x;
    params.blockDimY = pNodeParams->blockDim.y;
    params.blockDimZ = pNodeParams->blockDim.z;
    params.sharedMemBytes = pNodeParams->sharedMemBytes;
    params.kernelParams = pNodeParams->kernelParams;
    return report("hipGraphExecKernelNodeSetParams",
                  cuGraphExecKernelNodeSetParams(reinterpret_cast<CUgraphExec>(hGraphExec),
                                                 reinterpret_cast<CUgraphNode>(node), &params));
}

#if HIP_ON_CUDA_EXTRAS
#if HIP_VERSION < 50300000
// ROCm 6.2.0 include/hip/hip_runtime_api.h (ROCm 5.3 added it): the headers in use are older.
hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream);
#endif
#if HIP_VERSION < 50500000
// ROCm 6.2.0 include/hip/hip_runtime_api.h (ROCm 5.5 added it): the headers in use are older.
hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char* path, unsigned int flags);
#endif

hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream) {
    HIP_ON_CUDA_CONTEXT("hipGraphUpload");
    return report("hipGraphUpload", cuGraphUpload(reinterpret_cast<CUgraphExec>(graphExec),
                                                  reinterpret_cast<CUstream>(stream)));
}

hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char* path, unsigned int flags) {
    if (!path) {
        return hipErrorInvalidValue;
    }
    HIP_ON_CUDA_CONTEXT("hipGraphDebugDotPrint");
    return report("hipGraphDebugDotPrint", cuGraphDebugDotPrint(reinterpret_cast<CUgraph>(graph), path, flags));
}
#endif

// ---- hiprtc over NVRTC ----------------------------------------------------------------------------------------

const char* hiprtcGetErrorString(hiprtcResult result) {
    switch (result) {
        case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
        case HIPRTC_ERROR_OUT_OF_MEMORY: return "HIPRTC_ERROR_OUT_OF_MEMORY";
        case HIPRTC_ERROR_PROGRAM_CREATION_FAILURE: return "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE";
        case HIPRTC_ERROR_INVALID_INPUT: return "HIPRTC_ERROR_INVALID_INPUT";
        case HIPRTC_ERROR_INVALID_PROGRAM: return "HIPRTC_ERROR_INVALID_PROGRAM";
        case HIPRTC_ERROR_INVALID_OPTION: return "HIPRTC_ERROR_INVALID_OPTION";
        case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION";
        case HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE: return "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE";
        case HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: return "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
        case HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION: return "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
        case HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID: return "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
        case HIPRTC_ERROR_INTERNAL_ERROR: return "HIPRTC_ERROR_INTERNAL_ERROR";
        default: return "Invalid HIPRTC error code";
    }
}

hiprtcResult hiprtcVersion(int* major, int* minor) {
    const nvrtc::Library* lib = nvrtc::library();
    return lib ? toHiprtc(lib->version(major, minor)) : HIPRTC_ERROR_INTERNAL_ERROR;
}

hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int numHeaders,
                                 const char** headers, const char** includeNames) {
    const nvrtc::Library* lib = nvrtc::library();
    if (!lib) {
        return HIPRTC_ERROR_INTERNAL_ERROR;
    }
    if (!prog || !src || numHeaders < 0) {
        return HIPRTC_ERROR_INVALID_INPUT;
    }
    // hiprtc includes the HIP runtime header implicitly; a source that includes it explicitly gets an empty one
    std::vector<const char*> texts(headers, headers + (headers ? numHeaders : 0));
    std::vector<const char*> names(includeNames, includeNames + (includeNames ? numHeaders : 0));
    if (std::strstr(src, "hip/hip_runtime.h")
        && std::none_of(names.begin(), names.end(),
                        [](const char* n) { return n && std::strcmp(n, "hip/hip_runtime.h") == 0; })) {
        texts.push_back("#pragma once\n");
        names.push_back("hip/hip_runtime.h");
    }
    nvrtcProgram program = nullptr;
    nvrtcResult rc = lib->createProgram(&program, src, name, static_cast<int>(names.size()),
                                        names.empty() ? nullptr : texts.data(),
                                        names.empty() ? nullptr : names.data());
    *prog = reinterpret_cast<hiprtcProgram>(program);
    return toHiprtc(rc);
}

hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options) {
    const nvrtc::Library* lib = nvrtc::library();
    if (!lib) {
        return HIPRTC_ERROR_INTERNAL_ERROR;
    }
    if (numOptions < 0 || (numOptions > 0 && !options)) {
        return HIPRTC_ERROR_INVALID_INPUT;
    }
    std::vector<const char*> forwarded;
    bool architectureGiven = false;
    for (int i = 0; i < numOptions; i++) {
        if (startsWith(options[i], "--offload-arch") || startsWith(options[i], "-offload-arch")) {
            continue;  // an AMD target: meaningless here
        }
        architectureGiven = architectureGiven || startsWith(options[i], "--gpu-architecture")
                            || startsWith(options[i], "-arch");
        forwarded.push_back(options[i]);
    }
    std::string architecture;
    if (!architectureGiven) {  // as hiprtc: compile for the current device
        architecture = architectureOption(*lib);
        if (!architecture.empty()) {
            forwarded.push_back(architecture.c_str());
        }
    }
    return toHiprtc(lib->compileProgram(toNvrtc(prog), static_cast<int>(forwarded.size()),
                                        forwarded.empty() ? nullptr : forwarded.data()));
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
    const nvrtc::Library* lib = nvrtc::library();
    if (!lib) {
        return HIPRTC_ERROR_INTERNAL_ERROR;
    }
    if (!prog) {
        return HIPRTC_ERROR_INVALID_INPUT;
    }
    nvrtcProgram program = toNvrtc(*prog);
    nvrtcResult rc = lib->destroyProgram(&program);
    *prog = reinterpret_cast<hiprtcProgram>(program);
    return toHiprtc(rc);
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet) {
    const nvrtc::Library* lib = nvrtc::library();
    return lib ? toHiprtc(lib->getProgramLogSize(toNvrtc(prog), logSizeRet)) : HIPRTC_ERROR_INTERNAL_ERROR;
}

hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
    const nvrtc::Library* lib = nvrtc::library();
    return lib ? toHiprtc(lib->getProgramLog(toNvrtc(prog), log)) : HIPRTC_ERROR_INTERNAL_ERROR;
}

/** The "code object" is NVRTC's PTX, NUL included, which hipModuleLoadData hands to cuModuleLoadDataEx. */
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet) {
    const nvrtc::Library* lib = nvrtc::library();
    return lib ? toHiprtc(lib->getPtxSize(toNvrtc(prog), codeSizeRet)) : HIPRTC_ERROR_INTERNAL_ERROR;
}

hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
    const nvrtc::Library* lib = nvrtc::library();
    return lib ? toHiprtc(lib->getPtx(toNvrtc(prog), code)) : HIPRTC_ERROR_INTERNAL_ERROR;
}

}  // extern "C"
