package dev.graphrt.backend.cuda;

import dev.graphrt.backend.cuda.CudaNative.Symbol;
import dev.graphrt.driver.NativeBinder;
import java.lang.invoke.MethodHandle;

/**
 * The raw layer of the CUDA bindings: one {@code static final} downcall handle per {@link Symbol}, bound by the
 * shared {@link NativeBinder}, named as the driver exports it. Nobody calls these but {@link CudaDriver}, the
 * typed layer, which checks every result.
 *
 * <p>Why {@code static final} fields: the JIT treats them as constants and inlines the downcall. The class is
 * initialised on first use, which the backend makes only after {@link CudaLibrary#failure()} was empty, so a
 * machine without a driver never fails in a class initialiser. An optional symbol the driver lacks is null.
 */
final class CudaHandles {
    private static final NativeBinder B = new NativeBinder(CudaLibrary.lookup(), CudaLibrary.NAME);

    static final MethodHandle cuInit = B.bind(Symbol.cuInit);
    static final MethodHandle cuDriverGetVersion = B.bind(Symbol.cuDriverGetVersion);
    static final MethodHandle cuGetErrorName = B.bind(Symbol.cuGetErrorName);
    static final MethodHandle cuDeviceGetCount = B.bind(Symbol.cuDeviceGetCount);
    static final MethodHandle cuDeviceGet = B.bind(Symbol.cuDeviceGet);
    static final MethodHandle cuDeviceGetName = B.bind(Symbol.cuDeviceGetName);
    static final MethodHandle cuDeviceTotalMem = B.bind(Symbol.cuDeviceTotalMem_v2);
    static final MethodHandle cuDeviceGetAttribute = B.bind(Symbol.cuDeviceGetAttribute);
    static final MethodHandle cuDevicePrimaryCtxRetain = B.bind(Symbol.cuDevicePrimaryCtxRetain);
    static final MethodHandle cuDevicePrimaryCtxRelease = B.bind(Symbol.cuDevicePrimaryCtxRelease_v2);
    static final MethodHandle cuDevicePrimaryCtxReset = B.bind(Symbol.cuDevicePrimaryCtxReset_v2);
    static final MethodHandle cuCtxSynchronize = B.bind(Symbol.cuCtxSynchronize);
    static final MethodHandle cuCtxSetCurrent = B.bind(Symbol.cuCtxSetCurrent);
    static final MethodHandle cuThreadExchangeStreamCaptureMode = B.bind(Symbol.cuThreadExchangeStreamCaptureMode);
    static final MethodHandle cuStreamCreate = B.bind(Symbol.cuStreamCreate);
    static final MethodHandle cuStreamDestroy = B.bind(Symbol.cuStreamDestroy_v2);
    static final MethodHandle cuStreamSynchronize = B.bind(Symbol.cuStreamSynchronize);
    static final MethodHandle cuStreamQuery = B.bind(Symbol.cuStreamQuery);
    static final MethodHandle cuMemAlloc = B.bind(Symbol.cuMemAlloc_v2);
    static final MethodHandle cuMemFree = B.bind(Symbol.cuMemFree_v2);
    static final MethodHandle cuMemAllocHost = B.bind(Symbol.cuMemAllocHost_v2);
    static final MethodHandle cuMemFreeHost = B.bind(Symbol.cuMemFreeHost);
    static final MethodHandle cuMemcpyHtoD = B.bind(Symbol.cuMemcpyHtoD_v2);
    static final MethodHandle cuMemcpyHtoDAsync = B.bind(Symbol.cuMemcpyHtoDAsync_v2);
    static final MethodHandle cuMemcpyDtoHAsync = B.bind(Symbol.cuMemcpyDtoHAsync_v2);
    static final MethodHandle cuModuleLoadDataEx = B.bind(Symbol.cuModuleLoadDataEx);
    static final MethodHandle cuModuleGetFunction = B.bind(Symbol.cuModuleGetFunction);
    static final MethodHandle cuModuleUnload = B.bind(Symbol.cuModuleUnload);
    static final MethodHandle cuFuncGetParamInfo = B.bind(Symbol.cuFuncGetParamInfo);
    static final MethodHandle cuFuncLoad = B.bind(Symbol.cuFuncLoad);
    static final MethodHandle cuLaunchKernel = B.bind(Symbol.cuLaunchKernel);
    static final MethodHandle cuEventCreate = B.bind(Symbol.cuEventCreate);
    static final MethodHandle cuEventRecord = B.bind(Symbol.cuEventRecord);
    static final MethodHandle cuEventQuery = B.bind(Symbol.cuEventQuery);
    static final MethodHandle cuEventSynchronize = B.bind(Symbol.cuEventSynchronize);
    static final MethodHandle cuEventDestroy = B.bind(Symbol.cuEventDestroy_v2);
    static final MethodHandle cuStreamBeginCapture = B.bind(Symbol.cuStreamBeginCapture_v2);
    static final MethodHandle cuStreamEndCapture = B.bind(Symbol.cuStreamEndCapture);
    static final MethodHandle cuStreamIsCapturing = B.bind(Symbol.cuStreamIsCapturing);
    static final MethodHandle cuStreamGetCaptureInfoV3 = B.bind(Symbol.cuStreamGetCaptureInfo_v3);
    static final MethodHandle cuStreamGetCaptureInfoV2 = B.bind(Symbol.cuStreamGetCaptureInfo_v2);
    static final MethodHandle cuGraphGetNodes = B.bind(Symbol.cuGraphGetNodes);
    static final MethodHandle cuGraphNodeGetType = B.bind(Symbol.cuGraphNodeGetType);
    static final MethodHandle cuGraphInstantiateWithFlags = B.bind(Symbol.cuGraphInstantiateWithFlags);
    static final MethodHandle cuGraphUpload = B.bind(Symbol.cuGraphUpload);
    static final MethodHandle cuGraphLaunch = B.bind(Symbol.cuGraphLaunch);
    static final MethodHandle cuGraphExecDestroy = B.bind(Symbol.cuGraphExecDestroy);
    static final MethodHandle cuGraphDestroy = B.bind(Symbol.cuGraphDestroy);
    static final MethodHandle cuGraphDebugDotPrint = B.bind(Symbol.cuGraphDebugDotPrint);


    private CudaHandles() {
    }
}
